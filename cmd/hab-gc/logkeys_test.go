package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// duplicateKey returns a key a JSON object line has twice, or "".
func duplicateKey(line string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	if _, err := dec.Token(); err != nil { // {
		return "", err
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		k, _ := tok.(string)
		if seen[k] {
			return k, nil
		}
		seen[k] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", err
		}
	}
	return "", nil
}

// With --log-format json no line of the daemon's log
// repeats a key (its "watching the store" line had "store" twice: the
// daemon's logger for the watch carries it, and the watch logs it).
func TestDaemonJSONLogKeysUnique(t *testing.T) {
	exe := testtool.Executable(t)
	b := hostStore(t)
	b.Add(storetest.Release{Ident: "core/redis/6.2.5/20200101000000", ModTime: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
	b.Spec("redis", "core/redis")
	dir := testtool.TempDir(t)
	schedtest.Write(t, dir, "sup", schedtest.Watch(b.Root))
	stderr := &testtool.SyncBuffer{}
	cmd := &exec.Cmd{Path: exe, Args: []string{"hab-gc", "daemon", "--log-format", "json", "--schedules", dir, "--state", dir + "/state.json"},
		Stderr: stderr, Env: append(os.Environ(), "HAB_GC_RUNTIME_ROOTS=false")}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, "watching", func() bool { return strings.Contains(stderr.String(), "watching the store") }, stderr)
	testtool.Terminate(t, cmd)
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		k, err := duplicateKey(l)
		if err != nil {
			t.Errorf("not a JSON object: %v: %s", err, l)
		} else if k != "" {
			t.Errorf("key %q twice: %s", k, l)
		}
	}
}

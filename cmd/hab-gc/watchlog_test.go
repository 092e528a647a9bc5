//go:build linux

package main

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// logRecord is a slog text record's level and message.
var logRecord = regexp.MustCompile(`(?m)^time=\S+ level=(\S+) msg=("[^"]*"|\S+)`)

// TestWatchLogsOneRecordPerPurge: `hab-gc watch` logs one INFO record per
// purge (the package, what it removed and kept, the bytes freed, the run's
// ID), its details (phases, each release removed) at DEBUG, shown with
// --verbose; a stop by SIGTERM or SIGINT, while idle or while a purge
// waits for the store's lock, logs no ERROR, and the stopped purge is one
// INFO record too.
func TestWatchLogsOneRecordPerPurge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		verbose bool // and stopped while a purge waits for the lock
		sig     syscall.Signal
		want    []string // the INFO records' messages
	}{
		{"SIGTERM while idle", false, syscall.SIGTERM, []string{`"watching the store"`, "purged", "purged"}},
		{"SIGINT during a purge, --verbose", true, syscall.SIGINT, []string{`"watching the store"`, "purged", "purged", `"purge stopped"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := hostStore(t)
			b.Old("core/redis/6.2.5/20200101000000", "core/redis/6.2.6/20200201000000")
			b.Spec("redis", "core/redis")
			args := []string{"--keep-latest=1", "--runtime-roots=false"}
			if tc.verbose {
				args = append(args, "--verbose")
			}
			cmd, stderr := startWatch(t, b, args...)
			waitFor(t, "purged at start", func() bool { return strings.Contains(stderr.String(), "msg=purged package=core/redis trigger=start") }, stderr)
			in := hostInstaller(b, 48)
			in.Publish(storetest.Archive{Ident: "core/redis/7.0.1/20260101000000"}, storetest.Archive{Ident: "core/redis/7.0.2/20260201000000"})
			noErr(t, in.Install("core/redis/7.0.1/20260101000000"))
			restartService(t, b.Root, "redis")
			waitFor(t, "purged", func() bool { return purgedLine.MatchString(stderr.String()) }, stderr)
			if tc.verbose {
				// The next purge waits for the store's lock, held here.
				unlock, err := storetest.Open(t, b.Root).Lock(context.Background(), 0)
				noErr(t, err)
				defer unlock()
				noErr(t, in.Install("core/redis/7.0.2/20260201000000"))
				restartService(t, b.Root, "redis")
				waitFor(t, "the third purge waits for the lock", func() bool { return strings.Count(stderr.String(), "phase=locking") == 3 }, stderr)
			}
			noErr(t, cmd.Process.Signal(tc.sig))
			if err := cmd.Wait(); err != nil {
				t.Errorf("watch exited with %v", err)
			}
			var info []string
			levels := map[string]int{}
			for _, m := range logRecord.FindAllStringSubmatch(stderr.String(), -1) {
				levels[m[1]]++
				if m[1] == "INFO" {
					info = append(info, m[2])
				}
			}
			if !slices.Equal(info, tc.want) {
				t.Errorf("INFO records %q, want %q", info, tc.want)
			}
			if n := strings.Count(stderr.String(), "run_id="); n != len(tc.want)-1 {
				t.Errorf("%d records name the run, want one per purge (%d)", n, len(tc.want)-1)
			}
			if levels["ERROR"] > 0 {
				t.Errorf("a requested stop logged %d ERROR records", levels["ERROR"])
			}
			if tc.verbose != (levels["DEBUG"] > 0) || tc.verbose && !strings.Contains(stderr.String(), `msg="release removed"`) {
				t.Errorf("verbose %v: %d DEBUG records, want the details (phases, each release removed) with --verbose only", tc.verbose, levels["DEBUG"])
			}
			if t.Failed() {
				t.Logf("stderr:\n%s", stderr)
			}
		})
	}
}

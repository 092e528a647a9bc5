//go:build linux

package watch

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestSelfNotPurgedSaidOnce: while the Supervisor does not run its newest
// release, its package's purge is tried again every Delay for an hour
// (selfWait), and the log says why once per state, not at every try. The
// tries are run one after the other on a clock moved by hand; the
// Supervisor is a real process (a copy of sleep as bin/hab-sup).
func TestSelfNotPurgedSaidOnce(t *testing.T) {
	t.Parallel()
	const r1, r2, r3 = "chef/hab-sup/1.6.1/20230101000000", "chef/hab-sup/1.6.2/20230201000000", "chef/hab-sup/1.6.3/20230301000000"
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	bin, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	b := storetest.New(t)
	b.Old(r1, r2, r3)
	exe := filepath.Join(b.PkgPath(r2), "bin", "hab-sup")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	store, err := pkgstore.Open(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var log testtool.SyncBuffer
	now := time.Now()
	w := newWatcher(Options{Store: store, Policy: retention.Policy{KeepLatest: 1}, NoHistory: true,
		Logger: slog.New(slog.NewTextHandler(&log, nil)), Now: func() time.Time { return now }})
	t.Cleanup(w.close)
	self := pkgstore.MustParseIdent("chef/hab-sup")
	tries := func(n int) {
		for range n {
			w.mark(self, TriggerUpdate)
			w.pending[self].due = now
			w.runDue(context.Background())
			now = now.Add(w.o.delay())
		}
	}
	said := func() int { return strings.Count(log.String(), "not purging the Supervisor's package") }
	tries(5)
	if n := said(); n != 1 {
		t.Errorf("said %d times over 5 tries of one state, want once:\n%s", n, log.String())
	}
	cmd.Process.Kill()
	cmd.Wait()
	tries(3) // now no process runs any release: another state
	if n := said(); n != 2 {
		t.Errorf("said %d times over two states, want twice:\n%s", n, log.String())
	}
	installed := func(id string) bool { _, err := os.Stat(b.PkgPath(id)); return err == nil }
	if !installed(r1) || !installed(r2) || !installed(r3) {
		t.Errorf("the Supervisor's package was purged while it does not run its newest release")
	}
}

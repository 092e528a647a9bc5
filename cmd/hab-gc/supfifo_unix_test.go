//go:build unix

package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestSupervisorConfigFIFORefused: watch with no count of its own reads
// the Supervisor's sup.toml; a FIFO there is refused, exit 3, naming it
// as a named pipe, at once (docs/safety.md, "No hang on a FIFO").
func TestSupervisorConfigFIFORefused(t *testing.T) {
	t.Parallel()
	testtool.KnownDefect(t, "a FIFO at the Supervisor's sup.toml ends watch with exit 2, not the refusal (exit 3) the safety page promises")
	b := storetest.New(t)
	b.Pkg("core/a/1/20200101000000").Mkdir("hab/sup/default/config")
	fifo := filepath.Join(b.Root, "hab/sup/default/config/sup.toml")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- execute([]string{"watch", "--runtime-roots=false", "--fs-root", b.Root}, &stdout, &stderr, noEnv)
	}()
	select {
	case code := <-done:
		if code != exitRefused || !strings.Contains(stderr.String(), fifo) || !strings.Contains(stderr.String(), "named pipe") {
			t.Fatalf("exit %d, stderr %q: want exit %d naming %s as a named pipe", code, stderr.String(), exitRefused, fifo)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watch still running after 10s: hung on the FIFO")
	}
}

//go:build linux

package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Disk pressure starts on a 100% full file system, where
// the store's lock file cannot take the pid (ENOSPC): the run takes the
// lock, frees what --min-free asks and exits 0.
func TestRunPressureOnFullFileSystem(t *testing.T) {
	t.Parallel()
	b := pressureStore(t, 0)
	f, err := os.OpenFile(filepath.Join(b.Root, "filler"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	for { // what tmpfs left (partial pages)
		if _, err := f.Write([]byte{1}); err != nil {
			break
		}
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(b.Root, "probe"), []byte("x"), 0o600); !errors.Is(err, unix.ENOSPC) {
		t.Fatalf("the file system is not full: writing a byte gave %v", err)
	}
	rep, code, stderr := runPressure(t, b.Root, "--min-free", "1MiB", "--max-free", "1.5MiB")
	if code != 0 {
		t.Fatalf("exit %d on a full file system: %s", code, stderr)
	}
	if rep.FreeBefore == nil || *rep.FreeBefore != 0 || rep.FreeAfter == nil || *rep.FreeAfter < 3<<19 {
		t.Fatalf("free_before %v, free_after %v: want 0, then at least 1.5 MiB", rep.FreeBefore, rep.FreeAfter)
	}
	// From 0 B, 1.5 MiB takes three releases of about 530 KiB: the oldest
	// redis, the old lib it alone needed, the next redis.
	checkStore(t, b, "core/redis/1.0/20200101000000", "core/lib/1.0/20200101000000", "core/redis/2.0/20200201000000")
}

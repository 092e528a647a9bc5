//go:build windows

package schedule

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestFlockBoundedWindows: the state's LockFileEx lock is exclusive
// between handles (as flock between open files), waits for at most its
// bound and then fails with ErrStateBusy, is taken once the holder closes
// its handle, even while waiting, and leaves the file readable (the
// locked byte is far past its end).
func TestFlockBoundedWindows(t *testing.T) {
	path := filepath.Join(testtool.TempDir(t), "state.json.lock")
	if err := os.WriteFile(path, []byte("readable"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := func() *os.File {
		t.Helper()
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	lock := func(f *os.File, wait time.Duration) error {
		t.Helper()
		rc, err := f.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		return flockBounded(rc, wait)
	}
	first, second, third := open(), open(), open()
	if err := lock(first, 0); err != nil {
		t.Fatalf("the first lock: %v", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "readable" {
		t.Errorf("reading the locked file: %q, %v", b, err)
	}
	if err := lock(second, 100*time.Millisecond); !errors.Is(err, ErrStateBusy) {
		t.Fatalf("a second handle while the first holds it: %v, want ErrStateBusy", err)
	}
	first.Close()
	if err := lock(second, 0); err != nil {
		t.Fatalf("once the holder closed its handle: %v", err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		second.Close()
	}()
	if err := lock(third, time.Minute); err != nil {
		t.Fatalf("waiting while the holder closes its handle: %v", err)
	}
}

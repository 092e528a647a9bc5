//go:build unix

package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// An append to a journal whose lock is held elsewhere (a
// flock on another open file, as another process's would be) gives up
// with ErrBusy after LockTimeout, or at once when its context ends, and
// writes nothing; once the lock is free it appends.
func TestAppendNeverWaitsLong(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, fileName)
	if err := os.WriteFile(name, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	holder, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name    string
		ctx     context.Context
		timeout time.Duration
		within  time.Duration
	}{
		{"timeout", context.Background(), 200 * time.Millisecond, 5 * time.Second},
		{"try once", context.Background(), -1, 2 * time.Second},
		{"context ended", cancelled, time.Hour, 2 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			err := Journal{Dir: dir, LockTimeout: c.timeout}.AppendContext(c.ctx, []Record{rec(1, "")})
			if !errors.Is(err, ErrBusy) {
				t.Fatalf("append to a locked journal: %v, want ErrBusy", err)
			}
			if took := time.Since(start); took > c.within {
				t.Errorf("gave up after %s, want within %s", took, c.within)
			}
			if fi, _ := os.Stat(name); fi.Size() != 0 {
				t.Errorf("%d bytes written", fi.Size())
			}
		})
	}
	unix.Flock(int(holder.Fd()), unix.LOCK_UN)
	if err := (Journal{Dir: dir}).AppendContext(cancelled, []Record{rec(1, "")}); err != nil {
		t.Errorf("append once the lock is free, context ended: %v", err)
	}
}

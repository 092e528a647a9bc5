package pkgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gofrs/flock"
)

// LockFile is the name of hab-gc's lock file, directly in the store.
// Habitat's listing skips files at the origin level, and so does the
// scanner for this name.
const LockFile = ".hab-gc.lock"

// ErrLocked is wrapped by the error Lock returns when another process
// holds the store's lock past the timeout.
var ErrLocked = errors.New("store is locked by another hab-gc")

// LockedError says who holds the lock.
type LockedError struct {
	Path string
	// Holder is the pid written in the lock file by its holder, or 0.
	Holder int
	Waited time.Duration
}

func (e *LockedError) Error() string {
	holder := "an unknown process"
	if e.Holder > 0 {
		holder = fmt.Sprintf("pid %d", e.Holder)
	}
	return fmt.Sprintf("%v: %s is held by %s (waited %s)", ErrLocked, e.Path, holder, e.Waited)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// Lock takes the store's exclusive lock (flock(2) on LockFile), waiting up
// to timeout (0: try once). It writes this process's pid into the file so
// that a waiting hab-gc can name the holder. The kernel releases the lock
// when the process dies, so there are no stale locks. The returned
// function releases it.
func (s *Store) Lock(ctx context.Context, timeout time.Duration) (unlock func() error, err error) {
	path := filepath.Join(s.Path(), LockFile)
	// O_NOFOLLOW: a symlink planted at the lock's name is never followed
	// (hab-gc usually runs as root).
	fl := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW), flock.SetPermissions(0o644))
	start := time.Now()
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ok, err := fl.TryLock()
	if err == nil && !ok && timeout > 0 {
		ok, err = fl.TryLockContext(lctx, 50*time.Millisecond)
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if !ok {
		holder := 0
		if b, err := s.pkgs.ReadFile(LockFile); err == nil {
			holder, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		return nil, &LockedError{Path: path, Holder: holder, Waited: time.Since(start).Round(time.Millisecond)}
	}
	if err := s.pkgs.WriteFile(LockFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		fl.Unlock()
		return nil, fmt.Errorf("writing pid to %s: %w", path, err)
	}
	return fl.Unlock, nil
}

package pkgstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// LockFile is hab-gc's lock file, directly in the store (Habitat's listing
// skips files there).
const LockFile = ".hab-gc.lock"

// ErrLocked is wrapped by Lock's error when another holds the lock past
// the timeout.
var ErrLocked = errors.New("store is locked by another hab-gc")

// ErrUnsafeLockFile is wrapped by Lock's error when the lock file is not a
// regular file with one link owned by the effective user; nothing is
// written to it.
var ErrUnsafeLockFile = errors.New("refusing to use the lock file")

// errLockUnavailable is wrapped by ReadLock's without.
var errLockUnavailable = errors.New("the store's lock cannot be taken")

// LockedError says who holds the lock.
type LockedError struct {
	Path string
	// Holder is the pid the kernel reports (/proc/locks), never the one
	// written in the file; 0 with Unknown saying why.
	Holder  int
	Unknown string
	Waited  time.Duration
}

func (e *LockedError) Error() string {
	if e.Holder > 0 && e.Holder == os.Getpid() {
		return fmt.Sprintf("store is locked: %s is held by this process (pid %d: another open Store or an Apply not yet returned; waited %s)", e.Path, e.Holder, e.Waited)
	}
	holder := "a process that cannot be identified"
	if e.Holder > 0 {
		holder = fmt.Sprintf("pid %d", e.Holder)
	} else if e.Unknown != "" {
		holder += " (" + e.Unknown + ")"
	}
	return fmt.Sprintf("%v: %s is held by %s (waited %s)", ErrLocked, e.Path, holder, e.Waited)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// Lock takes the store's exclusive lock (flock on LockFile), waiting up to
// timeout (0 or less: try once); the returned function releases it. The
// lock file, created 0600, must be safe (ErrUnsafeLockFile) and is never
// written through a symlinked hab or hab/pkgs. The pid written in it is
// for people; on a full disk it is left out and the lock held all the
// same. Each Lock opens the file anew, so goroutines sharing a Store
// exclude each other as processes do.
func (s *Store) Lock(ctx context.Context, timeout time.Duration) (unlock func() error, err error) {
	f, err := s.openLock(os.O_RDWR|os.O_CREATE, true)
	if err != nil {
		return nil, err
	}
	if err := s.flock(ctx, f, lockExclusive, timeout); err != nil {
		f.Close()
		return nil, err
	}
	path := s.lockPath()
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing pid to %s: %w", path, err)
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		if !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EDQUOT) {
			f.Close()
			return nil, fmt.Errorf("writing pid to %s: %w", path, err)
		}
		f.Truncate(0) // no half-written pid; the kernel names the holder
	}
	s.lock.set(f)
	var once sync.Once
	return func() error {
		err := os.ErrClosed
		once.Do(func() {
			s.lock.clear(f)
			err = f.Close() // closing the descriptor releases the lock
		})
		return err
	}, nil
}

// ErrNotLocked is wrapped by HoldsLock's error.
var ErrNotLocked = errors.New("this Store does not hold the store's exclusive lock")

// HoldsLock returns nil when this Store holds the exclusive lock and the
// lock file's name still leads to the locked file; else it says why.
func (s *Store) HoldsLock() error {
	f := s.lock.get()
	if f != nil {
		held, err1 := f.Stat()
		now, err2 := s.pkgs.Lstat(LockFile)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return nil
		}
		return fmt.Errorf("%w: %s was removed or replaced since it was locked", ErrNotLocked, s.lockPath())
	}
	why := "Lock was not called, or its lock was released"
	if fi, err := s.pkgs.Lstat(LockFile); err == nil && fi.Mode().IsRegular() {
		if holders, err := flockHolders(fi); err == nil && len(holders) > 0 {
			why = fmt.Sprintf("%s is held by pid %v", s.lockPath(), holders)
			if slices.Contains(holders, os.Getpid()) {
				why += " (this process, through another Store)"
			}
		}
	}
	return fmt.Errorf("%w: %s", ErrNotLocked, why)
}

type heldLock struct {
	mu sync.Mutex
	f  *os.File
}

func (h *heldLock) set(f *os.File) { h.mu.Lock(); h.f = f; h.mu.Unlock() }

func (h *heldLock) get() *os.File { h.mu.Lock(); defer h.mu.Unlock(); return h.f }

func (h *heldLock) clear(f *os.File) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.f == f {
		h.f = nil
	}
}

// ReadLock takes the store's lock shared. Where it cannot be taken at all
// (a read-only store, a user without access) the reader goes on unlocked:
// without says why and unlock does nothing. It creates the lock file only
// in a store the effective user owns.
func (s *Store) ReadLock(ctx context.Context, timeout time.Duration) (unlock func() error, without, err error) {
	unlock, err = s.rlock(ctx, timeout)
	switch {
	case errors.Is(err, errLockUnavailable):
		return func() error { return nil }, err, nil
	case err != nil:
		return nil, nil, err
	}
	return unlock, nil, nil
}

func (s *Store) rlock(ctx context.Context, timeout time.Duration) (unlock func() error, err error) {
	flag := os.O_RDONLY
	if fi, err := s.pkgs.Stat("."); err == nil && safeio.Owner(fi) == os.Geteuid() {
		flag |= os.O_CREATE
	}
	f, err := s.openLock(flag, false)
	if err != nil {
		return nil, err
	}
	if err := s.flock(ctx, f, lockShared, timeout); err != nil {
		f.Close()
		return nil, err
	}
	return f.Close, nil
}

func (s *Store) lockPath() string { return filepath.Join(s.Path(), LockFile) }

// openLock opens the lock file without following a symlink or blocking,
// and checks the descriptor: a writer's must be the effective user's
// (tightened to 0600); a reader also takes root's or the store owner's.
func (s *Store) openLock(flag int, exclusive bool) (*os.File, error) {
	path := s.lockPath()
	ownerOK := func(uid int) bool {
		return uid == os.Geteuid() || (!exclusive && (uid == 0 || s.ownedBy(uid)))
	}
	var below error // a symlink on the way: the writer refused, a reader creates nothing
	if err := safeio.CheckBeneath(s.fsRoot, StoreDir, s.pkgs); err != nil {
		if exclusive {
			return nil, fmt.Errorf("%w %s: %w", ErrUnsafeLockFile, path, err)
		}
		below, flag = err, flag&^os.O_CREATE
	}
	f, err := safeio.OpenPrivate(s.pkgs, LockFile, flag, ownerOK, exclusive)
	var ue *safeio.UnsafeError
	switch {
	case below != nil && errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s does not exist and is not created: %w", errLockUnavailable, path, below)
	case errors.As(err, &ue):
		return nil, fmt.Errorf("%w %s: %s", ErrUnsafeLockFile, path, ue.Why)
	case err != nil && !exclusive && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)):
		return nil, fmt.Errorf("%w: %s: %v", errLockUnavailable, path, errMsg(err))
	case err != nil:
		return nil, fmt.Errorf("opening the lock file %s: %w", path, err)
	}
	return f, nil
}

func (s *Store) ownedBy(uid int) bool {
	fi, err := s.pkgs.Stat(".")
	return err == nil && safeio.Owner(fi) == uid
}

// flock locks f (LOCK_EX or LOCK_SH) until timeout, and checks that the
// name still leads to the locked file.
func (s *Store) flock(ctx context.Context, f *os.File, how int, timeout time.Duration) error {
	path := s.lockPath()
	rc, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("locking %s: %w", path, err)
	}
	try := func() (bool, error) {
		var ok bool
		var ferr error
		if err := rc.Control(func(fd uintptr) { ok, ferr = tryFlock(fd, how) }); err != nil {
			return false, err
		}
		return ok, ferr
	}
	start := time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		ok, err := try()
		if err != nil {
			return fmt.Errorf("locking %s: %w", path, err)
		}
		if ok {
			break
		}
		if timeout <= 0 {
			return s.lockedError(f, time.Since(start))
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("%w (%w)", s.lockedError(f, time.Since(start)), ctx.Err())
			}
			return ctx.Err()
		case <-deadline.C:
			return s.lockedError(f, time.Since(start))
		case <-tick.C:
		}
	}
	held, err1 := f.Stat()
	now, err2 := s.pkgs.Lstat(LockFile)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		return fmt.Errorf("%w %s: it was replaced while being locked; try again", ErrUnsafeLockFile, path)
	}
	return nil
}

// lockedError names the holder the kernel reports; the pid written in the
// file is only compared with it.
func (s *Store) lockedError(f *os.File, waited time.Duration) error {
	e := &LockedError{Path: s.lockPath(), Waited: waited.Round(time.Millisecond)}
	written := 0
	buf := make([]byte, 32)
	if n, err := f.ReadAt(buf, 0); n > 0 || err == nil {
		written, _ = strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	}
	fi, err := f.Stat()
	if err != nil {
		e.Unknown = "the lock file cannot be examined"
		return e
	}
	holders, err := flockHolders(fi)
	switch {
	case err != nil && written > 0:
		e.Unknown = fmt.Sprintf("the lock file names pid %d, which cannot be verified: %v", written, err)
	case err != nil:
		e.Unknown = fmt.Sprintf("the kernel's lock table cannot be read: %v", err)
	case len(holders) == 1:
		e.Holder = holders[0]
	case len(holders) > 1:
		e.Unknown = fmt.Sprintf("held shared by pids %v", holders)
	case written > 0:
		e.Unknown = fmt.Sprintf("the lock file names pid %d, which does not hold it", written)
	default:
		e.Unknown = "no holder in the kernel's lock table"
	}
	return e
}

// parseLocks returns the pids /proc/locks shows holding a flock on inode
// ino of device major:minor (exact) and of any device (byIno). Lines look
// like "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters ("->")
// are skipped.
func parseLocks(r io.Reader, major, minor, ino uint64) (exact, byIno []int, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" {
			continue
		}
		pid, err := strconv.Atoi(fields[4])
		if err != nil || pid <= 0 {
			continue
		}
		parts := strings.Split(fields[5], ":")
		if len(parts) != 3 {
			continue
		}
		i, err1 := strconv.ParseUint(parts[2], 10, 64)
		ma, err2 := strconv.ParseUint(parts[0], 16, 32)
		mi, err3 := strconv.ParseUint(parts[1], 16, 32)
		if err1 != nil || err2 != nil || err3 != nil || i != ino {
			continue
		}
		byIno = append(byIno, pid)
		if ma == major && mi == minor {
			exact = append(exact, pid)
		}
	}
	return distinct(exact), distinct(byIno), sc.Err()
}

// distinct: one process may hold several locks on the file.
func distinct(pids []int) []int {
	var out []int
	for _, p := range pids {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

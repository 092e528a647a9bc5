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

// LockFile is the name of hab-gc's lock file, directly in the store.
// Habitat's listing skips files at the origin level, and so does the
// scanner for this name.
const LockFile = ".hab-gc.lock"

// ErrLocked is wrapped by the error Lock returns when another process (or
// another Store of this one: LockedError says which)
// holds the store's lock past the timeout.
var ErrLocked = errors.New("store is locked by another hab-gc")

// ErrUnsafeLockFile is wrapped by the error Lock returns when what sits at
// the lock's name is not a lock file hab-gc may use: not a regular file
// (a symlink, FIFO, device, directory...), a file with more than one link
// (a hard link to a file elsewhere), or a file owned by another user.
// Nothing is written to it.
var ErrUnsafeLockFile = errors.New("refusing to use the lock file")

// errLockUnavailable is wrapped by ReadLock's without: the lock file does
// not exist and may not be created here, or cannot be opened.
var errLockUnavailable = errors.New("the store's lock cannot be taken")

// LockedError says who holds the lock.
type LockedError struct {
	Path string
	// Holder is the pid of the process that holds the lock, as the kernel
	// reports it (/proc/locks), or 0 when it cannot be identified. A pid
	// written in the lock file is never taken on its word.
	Holder int
	// Unknown says why the holder cannot be identified, when Holder is 0.
	Unknown string
	Waited  time.Duration
}

func (e *LockedError) Error() string {
	if e.Holder > 0 && e.Holder == os.Getpid() {
		// Not another hab-gc: another Store of this program, or an Apply
		// that has not returned, holds it.
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

// Lock takes the store's exclusive lock (flock(2) on LockFile), waiting up
// to timeout (0 or less: try once). timeout is a wait, not an option: for
// a LockTimeout option's meaning (0: 30 s), pass
// retention.LockWait(LockTimeout). The kernel releases the lock when the process
// dies, so there are no stale locks. The returned function releases it.
//
// The lock file is opened without following a symlink and without
// blocking, created mode 0600 when absent, and checked on the open
// descriptor: it must be a regular file with one link, owned by the
// effective user; anything else is refused (ErrUnsafeLockFile) and never
// written, as is a store reached through a symlinked hab or hab/pkgs
// below the FS root (safeio.ErrSymlink: hab-gc writes nothing through a
// symlink below the FS root; the FS root itself may be one). A lock file left more permissive by an older hab-gc is set to
// 0600, so no other user can open it to hold the lock. Once locked, this
// process's pid is written through that same descriptor, for people to
// read; a waiting hab-gc names the holder the kernel reports instead, so
// when the pid cannot be written (a full file system: ENOSPC, EDQUOT) the
// file is left empty and the lock is held all the same: a full disk is
// when freeing space matters most.
//
// While the lock is held, HoldsLock reports it (ApplyOptions.Locked is
// checked with it). Each Lock opens the lock file anew, so two goroutines
// sharing a Store exclude each other as two processes do (HoldsLock then
// reports the lock whichever of them holds it).
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
		// No room for the pid: the kernel's lock table names the holder.
		f.Truncate(0) // no half-written pid
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

// ErrNotLocked is wrapped by the error of HoldsLock when this Store does
// not hold the store's exclusive lock.
var ErrNotLocked = errors.New("this Store does not hold the store's exclusive lock")

// HoldsLock returns nil when this Store holds the store's exclusive lock
// (taken with Lock and not yet released) and the lock file's name still
// leads to the locked file. Otherwise it returns an error wrapping
// ErrNotLocked that says why, naming the holder (as the kernel reports
// it, see LockedError) when another process holds the lock.
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

// heldLock is the descriptor of the exclusive lock a Store holds.
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

// ReadLock takes the store's lock shared, for reading: any number of
// readers hold it at once, and none while Lock's holder does. It creates
// the lock file only when the effective user owns the store, never through
// a symlinked hab or hab/pkgs. Where the lock cannot be taken at all (a
// read-only store, a user without access) the reader goes on unlocked:
// without says why (wrapping errLockUnavailable) and unlock does nothing.
// Any other error (held past timeout, ctx done, an unsafe lock file) is
// err, with nothing held.
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
// and checks the descriptor. exclusive asks for the writer's rules (owned
// by the effective user, tightened to 0600); a reader also accepts a file
// owned by root or by the store's owner, and never changes it.
func (s *Store) openLock(flag int, exclusive bool) (*os.File, error) {
	path := s.lockPath()
	ownerOK := func(uid int) bool {
		return uid == os.Geteuid() || (!exclusive && (uid == 0 || s.ownedBy(uid)))
	}
	// The lock file is written (created, a pid) only in a store reached
	// from the FS root without a symlink (hab, hab/pkgs): the writer is
	// refused; a reader creates nothing and takes a lock file already
	// there (opening it writes nothing).
	var below error
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

// ownedBy reports whether uid owns the store directory.
func (s *Store) ownedBy(uid int) bool {
	fi, err := s.pkgs.Stat(".")
	return err == nil && safeio.Owner(fi) == uid
}

// flock locks f's descriptor (how: LOCK_EX or LOCK_SH), retrying until
// timeout, and checks that the name still leads to the locked file.
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
				// Out of time while another holds it: locked, as a timeout
				// says (an interruption stays context.Canceled).
				return fmt.Errorf("%w (%w)", s.lockedError(f, time.Since(start)), ctx.Err())
			}
			return ctx.Err()
		case <-deadline.C:
			return s.lockedError(f, time.Since(start))
		case <-tick.C:
		}
	}
	// The lock is on the descriptor's file; it guards the store only if
	// the name still leads there.
	held, err1 := f.Stat()
	now, err2 := s.pkgs.Lstat(LockFile)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		return fmt.Errorf("%w %s: it was replaced while being locked; try again", ErrUnsafeLockFile, path)
	}
	return nil
}

// lockedError names the holder of the lock on f's file as the kernel
// reports it in /proc/locks; the pid written in the file is only compared
// with it, never believed on its own.
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

// parseLocks reads /proc/locks and returns the pids holding a flock on
// inode ino of device major:minor (exact), and on inode ino of any device
// (byIno). Lines look like "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0
// EOF", device numbers in hex; waiters have "->" after the number and are
// skipped.
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
	// One process may hold several locks on the file (an open file
	// description each): it is one holder (TestApplyLock once saw "held
	// shared by pids [24785 24785 24785]", all its own).
	return distinct(exact), distinct(byIno), sc.Err()
}

// distinct is pids each once, in the order they first appear.
func distinct(pids []int) []int {
	var out []int
	for _, p := range pids {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

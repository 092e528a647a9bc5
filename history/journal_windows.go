//go:build windows

package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/winfs"
)

// The Windows journal is journal_unix.go's, call for call, through
// handles: the directory is opened without following a reparse point
// (winfs.OpenDirAt, from FSRoot down), the journal relative to it
// (winfs.Open with FILE_OPEN_REPARSE_POINT: a symlink there is opened
// itself and refused), locked with LockFileEx, and rotated with
// handle-relative deletes and renames (winfs.Remove, winfs.Rename).

// lockOffset is the byte LockFileEx locks: far past any size the journal
// will have, since Windows' locks are mandatory and one on its data would
// stop Read (as pkgstore/lock_windows.go).
const lockOffset = 1 << 62

// openDir opens the journal's directory, making it when missing: with
// FSRoot, every component below it one at a time without following a
// reparse point; without, Dir as given, its last component not followed.
func (j Journal) openDir() (windows.Handle, error) {
	if j.FSRoot != "" {
		rel, err := j.relDir()
		if err != nil {
			return windows.InvalidHandle, err
		}
		root, err := filepath.Abs(j.FSRoot)
		if err != nil {
			return windows.InvalidHandle, fmt.Errorf("history: %w", err)
		}
		p, err := windows.UTF16PtrFromString(winfs.LongPath(root))
		if err != nil {
			return windows.InvalidHandle, fmt.Errorf("history: %w", err)
		}
		// FSRoot itself may be a link: the caller's choice (Journal.FSRoot).
		h, err := windows.CreateFile(p, windows.FILE_LIST_DIRECTORY|windows.FILE_TRAVERSE, winfs.ShareAll, nil,
			windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
		if err != nil {
			return windows.InvalidHandle, fmt.Errorf("history: %w", &fs.PathError{Op: "open", Path: j.FSRoot, Err: err})
		}
		for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
			if part == "." || part == "" {
				continue
			}
			next, err := winfs.OpenDirAt(h, part, true)
			windows.CloseHandle(h)
			if err != nil {
				return windows.InvalidHandle, fmt.Errorf("history: %s: %w", filepath.Join(j.FSRoot, rel), err)
			}
			h = next
		}
		return h, nil
	}
	if err := os.MkdirAll(j.Dir, 0o755); err != nil {
		return windows.InvalidHandle, fmt.Errorf("history: %w", err)
	}
	abs, err := filepath.Abs(j.Dir)
	if err != nil {
		return windows.InvalidHandle, fmt.Errorf("history: %w", err)
	}
	h, err := winfs.OpenDirPath(abs)
	if err != nil {
		return windows.InvalidHandle, fmt.Errorf("history: %w", err)
	}
	return h, nil
}

// closeDir closes the directory openDir opened.
func closeDir(d windows.Handle) { windows.CloseHandle(d) }

// appendOnce opens, locks and checks the journal and appends data; done
// is false when the file was rotated (by us or another writer) meanwhile.
// It works handle-relative to the directory d, under the journal's
// LockFileEx lock. The journal's handle may only append (FILE_APPEND_DATA
// without FILE_WRITE_DATA: every write goes to the end, as O_APPEND's).
func (j Journal) appendOnce(ctx context.Context, d windows.Handle, data []byte) (done bool, err error) {
	name := filepath.Join(j.Dir, FileName)
	f, err := winfs.Open(d, FileName, windows.FILE_READ_DATA|windows.FILE_APPEND_DATA, winfs.ShareAll,
		windows.FILE_OPEN_IF, windows.FILE_NON_DIRECTORY_FILE)
	if err != nil {
		return false, &fs.PathError{Op: "open", Path: name, Err: errors.Unwrap(err)}
	}
	defer windows.CloseHandle(f)
	in, err := winfs.Stat(f)
	if err != nil {
		return false, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	switch {
	case in.Reparse():
		return false, fmt.Errorf("history: %s: %w (a symlink or another reparse point)", name, ErrUnsafe)
	case in.IsDir() || in.Links != 1:
		return false, fmt.Errorf("history: %s: %w (%d links)", name, ErrUnsafe, in.Links)
	}
	if err := lockFile(ctx, f, j.lockTimeout()); err != nil {
		return false, fmt.Errorf("history: %s: %w", name, err)
	}
	// Under the lock: is the name still this file?
	cur, err := winfs.Open(d, FileName, 0, winfs.ShareAll, windows.FILE_OPEN, 0)
	if err != nil {
		return false, nil
	}
	now, err := winfs.Stat(cur)
	windows.CloseHandle(cur)
	if err != nil || now.Volume != in.Volume || now.Index != in.Index {
		return false, nil
	}
	if in, err = winfs.Stat(f); err != nil {
		return false, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if in.Size > 0 && in.Size+int64(len(data)) > j.maxSize() {
		return false, j.rotate(d)
	}
	if in.Size > 0 {
		// A crash may have cut the last line: end it, so that it stays
		// one bad line and the new records stay whole.
		last := make([]byte, 1)
		var n uint32
		ol := windows.Overlapped{Offset: uint32(in.Size - 1), OffsetHigh: uint32((in.Size - 1) >> 32)}
		if err := windows.ReadFile(f, last, &n, &ol); err == nil && n == 1 && last[0] != '\n' {
			data = append([]byte{'\n'}, data...)
		}
	}
	for len(data) > 0 {
		var n uint32
		if err := windows.WriteFile(f, data, &n, nil); err != nil {
			return false, &fs.PathError{Op: "write", Path: name, Err: err}
		}
		data = data[n:]
	}
	if err := windows.FlushFileBuffers(f); err != nil {
		return false, &fs.PathError{Op: "flush", Path: name, Err: err}
	}
	// No directory to fsync: NTFS journals the new name itself.
	return true, nil
}

// rotate shifts the rotated files up by one, dropping the oldest, and
// moves the journal to .1. The caller holds the journal's lock (on its
// handle, which shares deletion: the rename does not wait for it). A
// reader that holds a rotated file open without FILE_SHARE_DELETE makes
// the rotation fail, and the append with it; the next append tries
// again.
func (j Journal) rotate(d windows.Handle) error {
	k := j.keep()
	if err := winfs.Remove(d, rotated(k)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("history: %s: %w", filepath.Join(j.Dir, rotated(k)), err)
	}
	for n := k - 1; n >= 0; n-- {
		if err := winfs.Rename(d, rotated(n), rotated(n+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("history: %s: %w", filepath.Join(j.Dir, rotated(n)), err)
		}
	}
	return nil
}

// lockFile takes f's exclusive LockFileEx lock, polling without blocking
// for at most timeout and until ctx ends (one try when either is over at
// once), as flock in journal_unix.go.
func lockFile(ctx context.Context, f windows.Handle, timeout time.Duration) error {
	return waitLock(ctx, timeout, func() (bool, error) {
		ol := windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
		err := windows.LockFileEx(f, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
		switch {
		case err == nil:
			return true, nil
		case !errors.Is(err, windows.ERROR_LOCK_VIOLATION) && !errors.Is(err, windows.ERROR_IO_PENDING):
			return false, fmt.Errorf("LockFileEx: %w", err)
		}
		return false, nil
	})
}

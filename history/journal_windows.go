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
// handles, never following a reparse point.

// lockOffset is past any size: Windows' locks are mandatory and one on
// the data would stop Read.
const lockOffset = 1 << 62

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

func closeDir(d windows.Handle) { windows.CloseHandle(d) }

// appendOnce: done is false when the file was rotated meanwhile. The
// handle may only append (FILE_APPEND_DATA without FILE_WRITE_DATA).
func (j Journal) appendOnce(ctx context.Context, d windows.Handle, data []byte) (done bool, err error) {
	name := filepath.Join(j.Dir, fileName)
	f, err := winfs.Open(d, fileName, windows.FILE_READ_DATA|windows.FILE_APPEND_DATA, winfs.ShareAll,
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
	cur, err := winfs.Open(d, fileName, 0, winfs.ShareAll, windows.FILE_OPEN, 0)
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

// rotate: a reader holding a rotated file without FILE_SHARE_DELETE fails
// it, and the next append tries again.
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

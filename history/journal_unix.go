//go:build unix

package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

func (j Journal) openDir() (*os.File, error) {
	if j.FSRoot != "" {
		rel, err := j.relDir()
		if err != nil {
			return nil, err
		}
		d, err := safeio.OpenDirBeneath(j.FSRoot, filepath.ToSlash(rel), true)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		return d, nil
	}
	if err := os.MkdirAll(j.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	dfd, err := unix.Open(j.Dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: j.Dir, Err: err}
	}
	return os.NewFile(uintptr(dfd), j.Dir), nil
}

func closeDir(d *os.File) { d.Close() }

// appendOnce: done is false when the file was rotated meanwhile.
func (j Journal) appendOnce(ctx context.Context, d *os.File, data []byte) (done bool, err error) {
	dfd := int(d.Fd())
	name := filepath.Join(j.Dir, fileName)
	fd, err := openat(dfd, fileName, unix.O_RDWR|unix.O_APPEND|unix.O_CREAT|unix.O_NONBLOCK|unix.O_NOCTTY, 0o640)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return false, fmt.Errorf("history: %s: %w (a symlink)", name, ErrUnsafe)
		}
		return false, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, &fs.PathError{Op: "fstat", Path: name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 {
		return false, fmt.Errorf("history: %s: %w (%s, %d links)", name, ErrUnsafe, safeio.Kind(safeio.ModeOf(uint32(st.Mode))), st.Nlink)
	}
	if err := flock(ctx, fd, j.lockTimeout()); err != nil {
		return false, fmt.Errorf("history: %s: %w", name, err)
	}
	// Under the lock: is the name still this file?
	var cur unix.Stat_t
	if err := unix.Fstatat(dfd, fileName, &cur, unix.AT_SYMLINK_NOFOLLOW); err != nil || cur.Dev != st.Dev || cur.Ino != st.Ino {
		return false, nil
	}
	if err := unix.Fstat(fd, &st); err != nil {
		return false, &fs.PathError{Op: "fstat", Path: name, Err: err}
	}
	if st.Size > 0 && st.Size+int64(len(data)) > j.maxSize() {
		return false, j.rotate(dfd)
	}
	if st.Size > 0 {
		// A crash may have cut the last line: end it.
		last := make([]byte, 1)
		if n, err := unix.Pread(fd, last, st.Size-1); err == nil && n == 1 && last[0] != '\n' {
			data = append([]byte{'\n'}, data...)
		}
	}
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, &fs.PathError{Op: "write", Path: name, Err: err}
		}
		data = data[n:]
	}
	if err := unix.Fsync(fd); err != nil {
		return false, &fs.PathError{Op: "fsync", Path: name, Err: err}
	}
	if st.Size == 0 {
		unix.Fsync(dfd) // a new file: make its name durable too
	}
	return true, nil
}

func (j Journal) rotate(dfd int) error {
	k := j.keep()
	if err := unix.Unlinkat(dfd, rotated(k), 0); err != nil && err != unix.ENOENT {
		return &fs.PathError{Op: "unlink", Path: filepath.Join(j.Dir, rotated(k)), Err: err}
	}
	for n := k - 1; n >= 0; n-- {
		if err := unix.Renameat(dfd, rotated(n), dfd, rotated(n+1)); err != nil && err != unix.ENOENT {
			return &fs.PathError{Op: "rename", Path: filepath.Join(j.Dir, rotated(n)), Err: err}
		}
	}
	if err := unix.Fsync(dfd); err != nil {
		return &fs.PathError{Op: "fsync", Path: j.Dir, Err: err}
	}
	return nil
}

func openat(dfd int, name string, flag int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dfd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func flock(ctx context.Context, fd int, timeout time.Duration) error {
	return waitLock(ctx, timeout, func() (bool, error) {
		for {
			err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
			switch {
			case err == nil:
				return true, nil
			case err == unix.EINTR:
				continue
			case err != unix.EWOULDBLOCK:
				return false, fmt.Errorf("flock: %w", err)
			}
			return false, nil
		}
	})
}

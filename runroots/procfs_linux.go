package runroots

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"
)

// maxRead caps one read of maps, environ or cmdline (more: Failed).
const maxRead = 64 << 20

// fds calls f with the target of every fd link.
func (r *reader) fds(dfd int, f func(name, target string)) error {
	fd, err := unix.Openat(dfd, "fd", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if r.dents == nil {
		r.dents = make([]byte, 16<<10)
	}
	var names []string
	for {
		n, err := unix.Getdents(fd, r.dents)
		if err != nil {
			return err
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(r.dents[:n], -1, names[:0])
		for _, name := range names {
			t, err := r.readlinkat(fd, name)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					continue
				}
				return err
			}
			f(name, t)
		}
	}
	return nil
}

func (r *reader) readlinkat(dfd int, name string) (string, error) {
	if r.link == nil {
		r.link = make([]byte, 4096)
	}
	for {
		n, err := unix.Readlinkat(dfd, name, r.link)
		if err != nil {
			return "", err
		}
		if n < len(r.link) {
			return string(r.link[:n]), nil
		}
		if len(r.link) >= 1<<20 {
			return "", fmt.Errorf("link %s longer than 1 MiB", name)
		}
		r.link = make([]byte, 2*len(r.link))
	}
}

// readAt reads a whole proc file into the reader's buffer (valid until
// the next read).
func (r *reader) readAt(dfd int, name string) ([]byte, error) {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if r.buf == nil {
		r.buf = make([]byte, 0, 64<<10)
	}
	b := r.buf[:0]
	for {
		if len(b) == cap(b) {
			if cap(b) >= maxRead {
				return nil, fmt.Errorf("%s larger than %d MiB", name, maxRead>>20)
			}
			b = slices.Grow(b, cap(b))
		}
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		b = b[:len(b)+n]
	}
	r.buf = b
	return b, nil
}

package onefs

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

const maxOpen = 64

type frame struct {
	fd       int  // -1 while closed to bound descriptors
	borrowed bool // fd is the caller's: never closed
	dev, ino uint64
	name     string  // its name in its parent
	names    []entry // entries still to visit
}

func (e entry) mayBeDir() bool { return e.typ == unix.DT_DIR || e.typ == unix.DT_UNKNOWN }

type walker struct {
	top     info
	stack   []frame
	open    int // frames [0, lowOpen) are closed
	lowOpen int
	ops     int
	noStatx bool
	bufs    *Buffers
	known   func(name string) *unix.Statx_t // MeasureOpen's
}

func (w *walker) knownStat(name string) *unix.Statx_t {
	if w.known == nil || len(w.stack) != 1 {
		return nil
	}
	return w.known(name)
}

func (w *walker) readDir(fd int) ([]entry, error) {
	if w.bufs == nil {
		w.bufs = &Buffers{}
	}
	return readNames(fd, w.bufs.direntBuf(), w.bufs.list())
}

func (w *walker) left(f *frame) {
	if w.bufs != nil {
		w.bufs.done(f.names)
	}
	f.names = nil
}

func (w *walker) path(name string) string {
	parts := make([]string, 0, len(w.stack))
	for _, f := range w.stack[1:] {
		parts = append(parts, f.name)
	}
	if name != "" {
		parts = append(parts, name)
	}
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}

func (w *walker) closeAll() {
	for i := range w.stack {
		if w.stack[i].fd >= 0 && !w.stack[i].borrowed {
			unix.Close(w.stack[i].fd)
			w.stack[i].fd = -1
		}
		w.left(&w.stack[i])
	}
	w.stack = nil
}

func openDir(dirfd int, name string) (int, error) {
	return unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
}

func readNames(fd int, buf []byte, out []entry) ([]entry, error) {
	err := safeio.ReadDirents(fd, buf, func(name string, typ uint8) {
		out = append(out, entry{name: name, typ: typ})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// push enters name, checked as want, and checks it again on the descriptor.
func (w *walker) push(name string, want info) error {
	parent := w.stack[len(w.stack)-1].fd
	w.ops++
	fd, err := openDir(parent, name)
	if err != nil {
		return fmt.Errorf("opening %s: %w", w.path(name), err)
	}
	got, err := w.stat(fd, "")
	if err != nil {
		unix.Close(fd)
		return fmt.Errorf("checking %s: %w", w.path(name), err)
	}
	if got.dev != want.dev || got.ino != want.ino {
		unix.Close(fd)
		return fmt.Errorf("%s: %w", w.path(name), ErrChanged)
	}
	if !w.sameMount(got) {
		unix.Close(fd)
		return &MountError{Path: w.path(name)}
	}
	names, err := w.readDir(fd)
	if err != nil {
		unix.Close(fd)
		return fmt.Errorf("reading %s: %w", w.path(name), err)
	}
	w.stack = append(w.stack, frame{fd: fd, dev: got.dev, ino: got.ino, name: name, names: names})
	w.open++
	for w.open > maxOpen && w.lowOpen < len(w.stack)-1 {
		f := &w.stack[w.lowOpen]
		w.lowOpen++
		if f.borrowed {
			continue
		}
		unix.Close(f.fd)
		f.fd = -1
		w.open--
	}
	return nil
}

// pop leaves the top frame, reopening a closed parent through ".." (checked).
func (w *walker) pop() (string, error) {
	n := len(w.stack) - 1
	child := w.stack[n]
	if parent := &w.stack[n-1]; parent.fd < 0 {
		w.ops += 2
		fd, err := openDir(child.fd, "..")
		if err != nil {
			return "", fmt.Errorf("reopening %s: %w", w.path(".."), err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Dev != parent.dev || st.Ino != parent.ino {
			unix.Close(fd)
			return "", fmt.Errorf("%s: %w", w.path(".."), ErrChanged)
		}
		parent.fd = fd
		w.open++
		w.lowOpen = n - 1
	}
	unix.Close(child.fd)
	w.open--
	w.left(&w.stack[n])
	w.stack = w.stack[:n]
	return child.name, nil
}

func (w *walker) start(dirfd int, name string) error {
	w.ops++
	fd, err := openDir(dirfd, name)
	if err != nil {
		return err
	}
	top, err := w.stat(fd, "")
	if err != nil {
		unix.Close(fd)
		return err
	}
	names, err := w.readDir(fd)
	if err != nil {
		unix.Close(fd)
		return err
	}
	w.top = top
	w.stack = []frame{{fd: fd, dev: top.dev, ino: top.ino, name: name, names: names}}
	w.open = 1
	return nil
}

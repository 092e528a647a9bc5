package onefs

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// Walk lists dir's mount points (not entered) and, with measure, its size.
func Walk(dir *os.File, measure bool) (Usage, error) {
	var w walker
	defer w.closeAll()
	u, err := w.walk(int(dir.Fd()), ".", measure)
	u.Ops = w.ops
	return u, err
}

// WalkAt is Walk of the directory name in dirfd; bufs may be nil.
func WalkAt(dirfd int, name string, measure bool, bufs *Buffers) (Usage, error) {
	w := walker{bufs: bufs}
	defer w.closeAll()
	u, err := w.walk(dirfd, name, measure)
	u.Ops = w.ops
	return u, err
}

// MeasureOpen measures the directory open as fd (unlisted; left at its
// end), whose statx is top; known gives the statx of entries the caller
// already examined, or nil.
func MeasureOpen(fd int, top *safeio.Stat, known func(name string) *safeio.Stat, bufs *Buffers) (Usage, error) {
	w := walker{bufs: bufs, known: known}
	defer w.closeAll()
	in := infoOf(top)
	if !in.isDir() {
		return Usage{}, unix.ENOTDIR
	}
	names, err := w.readDir(fd)
	if err != nil {
		return Usage{}, err
	}
	w.top = in
	w.stack = []frame{{fd: fd, borrowed: true, dev: in.dev, ino: in.ino, name: ".", names: names}}
	w.open = 1
	u, err := w.loop(true)
	u.Ops = w.ops
	return u, err
}

func (w *walker) walk(dirfd int, name string, measure bool) (Usage, error) {
	if err := w.start(dirfd, name); err != nil {
		return Usage{}, err
	}
	return w.loop(measure)
}

func (w *walker) loop(measure bool) (Usage, error) {
	u := Usage{}
	if measure {
		u.Bytes = w.top.blocks
	}
	var seen map[[2]uint64]bool // files with several links, counted once
	for {
		f := &w.stack[len(w.stack)-1]
		if len(f.names) == 0 {
			if len(w.stack) == 1 {
				return u, nil
			}
			if _, err := w.pop(); err != nil {
				return u, err
			}
			continue
		}
		e := f.names[len(f.names)-1]
		f.names = f.names[:len(f.names)-1]
		if !measure && !e.mayBeDir() {
			continue
		}
		var in info
		var err error
		if sx := w.knownStat(e.name); sx != nil {
			in = infoOf(sx)
		} else {
			in, err = w.stat(f.fd, e.name)
		}
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return u, fmt.Errorf("%s: %w", w.path(e.name), err)
		}
		if !w.sameMount(in) {
			u.Mounts = append(u.Mounts, w.path(e.name))
			continue
		}
		if measure {
			id := [2]uint64{in.dev, in.ino}
			if in.isDir() || in.nlink <= 1 || !seen[id] {
				u.Bytes += in.blocks
			}
			if !in.isDir() && in.nlink > 1 {
				if seen == nil {
					seen = map[[2]uint64]bool{}
				}
				seen[id] = true
			}
		}
		if in.isDir() {
			if err := w.push(e.name, in); err != nil {
				var me *MountError
				if !errors.As(err, &me) {
					return u, err
				}
				u.Mounts = append(u.Mounts, me.Path)
			}
		}
	}
}

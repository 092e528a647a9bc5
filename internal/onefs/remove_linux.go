package onefs

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// RemoveAll deletes the directory name in parent, stopping with a
// *MountError at the first mount point, what came before deleted: Walk
// first to delete nothing then.
func RemoveAll(parent *os.File, name string) (ops int, err error) {
	var w walker
	defer w.closeAll()
	err = w.remove(int(parent.Fd()), name)
	return w.ops, err
}

func (w *walker) remove(pfd int, name string) error {
	if err := w.start(pfd, name); err != nil {
		return err
	}
	for {
		f := &w.stack[len(w.stack)-1]
		if len(f.names) == 0 {
			if len(w.stack) == 1 {
				break
			}
			child, err := w.pop()
			if err != nil {
				return err
			}
			if err := unix.Unlinkat(w.stack[len(w.stack)-1].fd, child, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
				return fmt.Errorf("removing %s: %w", w.path(child), err)
			}
			continue
		}
		e := f.names[len(f.names)-1]
		f.names = f.names[:len(f.names)-1]
		if e.mayBeDir() {
			in, err := w.stat(f.fd, e.name)
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			if err != nil {
				return fmt.Errorf("%s: %w", w.path(e.name), err)
			}
			if !w.sameMount(in) {
				return &MountError{Path: w.path(e.name)}
			}
			if in.isDir() {
				if err := w.push(e.name, in); err != nil {
					return err
				}
				continue
			}
		}
		// unlink(2) never follows a symlink and refuses a directory.
		if err := unix.Unlinkat(f.fd, e.name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("removing %s: %w", w.path(e.name), err)
		}
	}
	w.closeAll()
	if err := unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("removing %s: %w", name, err)
	}
	return nil
}

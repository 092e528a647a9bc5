//go:build unix

package lease

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// leaseDir is the lease directory, open by descriptor; every name given
// to its methods is one component inside it, opened with O_NOFOLLOW.
type leaseDir struct {
	f    *os.File
	path string
}

// openLeaseDir opens the lease directory of fsRoot, never through a
// symlink at hab-gc or leases; to write, nor at any level below fsRoot.
// Either is an error wrapping ErrSymlink.
func openLeaseDir(fsRoot string, write, create bool) (*leaseDir, error) {
	base, rel := fsRoot, relDir
	if !write {
		base, rel = filepath.Join(fsRoot, habitatDir), ownDir
	}
	f, err := safeio.OpenDirBeneath(base, rel, create)
	if se := (*safeio.SymlinkError)(nil); !write && errors.As(err, &se) {
		return nil, fmt.Errorf("%w: %s -> %s", ErrSymlink, se.Path, se.Target)
	}
	if errors.Is(err, safeio.ErrSymlink) {
		return nil, fmt.Errorf("%w: %w", ErrSymlink, err)
	}
	if err != nil {
		return nil, err
	}
	return &leaseDir{f: f, path: f.Name()}, nil
}

func (d *leaseDir) Close() error { return d.f.Close() }

func (d *leaseDir) open(name string, flag int, perm os.FileMode) (*os.File, error) {
	p := filepath.Join(d.path, name)
	for {
		fd, err := unix.Openat(int(d.f.Fd()), name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: p, Err: err}
		}
		return os.NewFile(uintptr(fd), p), nil
	}
}

func (d *leaseDir) remove(name string) error {
	if err := unix.Unlinkat(int(d.f.Fd()), name, 0); err != nil {
		return &fs.PathError{Op: "unlink", Path: filepath.Join(d.path, name), Err: err}
	}
	return nil
}

func (d *leaseDir) rename(from, to string) error {
	fd := int(d.f.Fd())
	if err := unix.Renameat(fd, from, fd, to); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(d.path, from), New: filepath.Join(d.path, to), Err: err}
	}
	return nil
}

// same reports whether name is still the file f.
func (d *leaseDir) same(name string, f *os.File) bool {
	var cur, open unix.Stat_t
	if unix.Fstatat(int(d.f.Fd()), name, &cur, unix.AT_SYMLINK_NOFOLLOW) != nil || unix.Fstat(int(f.Fd()), &open) != nil {
		return false
	}
	return cur.Dev == open.Dev && cur.Ino == open.Ino
}

func (d *leaseDir) names() ([]string, error) {
	f, err := d.open(".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

func (d *leaseDir) sync() { d.f.Sync() }

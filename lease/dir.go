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

// leaseDir is the lease directory, open by descriptor: every name given
// to its methods is one component inside it, opened with O_NOFOLLOW, so
// nothing it does reaches outside the directory it opened.
type leaseDir struct {
	f    *os.File
	path string
}

// dirFlags open a directory without following a symlink or blocking.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// openLeaseDir opens the lease directory of fsRoot. With create, missing
// directories are made (Habitat's part included); without, a missing one
// is an error wrapping fs.ErrNotExist. A symlink at hab-gc or leases is
// an error wrapping ErrSymlink, naming it and where it leads.
func openLeaseDir(fsRoot string, create bool) (*leaseDir, error) {
	top := filepath.Join(fsRoot, habitatDir)
	if create {
		if err := os.MkdirAll(top, 0o755); err != nil {
			return nil, err
		}
	}
	fd, err := unix.Open(top, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: top, Err: err}
	}
	p := top
	for _, name := range ownDirs {
		p = filepath.Join(p, name)
		next, err := openOwn(fd, name, p, create)
		unix.Close(fd)
		if err != nil {
			return nil, err
		}
		fd = next
	}
	return &leaseDir{f: os.NewFile(uintptr(fd), p), path: p}, nil
}

// openLeaseDirBeneath opens the lease directory of fsRoot to write in it
// (a new lease, a sweep of dead ones): no directory from fsRoot down,
// Habitat's part included, may be a symlink (safeio.OpenDirBeneath); one
// is an error wrapping ErrSymlink and safeio.ErrSymlink naming it, and
// nothing is made or removed. With create, missing directories are made.
func openLeaseDirBeneath(fsRoot string, create bool) (*leaseDir, error) {
	f, err := safeio.OpenDirBeneath(fsRoot, RelDir, create)
	if errors.Is(err, safeio.ErrSymlink) {
		return nil, fmt.Errorf("%w: %w", ErrSymlink, err)
	}
	if err != nil {
		return nil, err
	}
	return &leaseDir{f: f, path: f.Name()}, nil
}

// openOwn opens the directory name in dirfd (at path p) without following
// a symlink, making it first with create.
func openOwn(dirfd int, name, p string, create bool) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, dirFlags, 0)
		switch {
		case err == nil:
			return fd, nil
		case err == unix.EINTR:
			continue
		case err == unix.ENOENT && create:
			if err := unix.Mkdirat(dirfd, name, 0o755); err != nil && err != unix.EEXIST {
				return -1, &fs.PathError{Op: "mkdir", Path: p, Err: err}
			}
			create = false // once: a name that vanishes again is an error
			continue
		case err == unix.ELOOP || err == unix.ENOTDIR:
			var st unix.Stat_t
			if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				buf := make([]byte, 4096)
				n, _ := unix.Readlinkat(dirfd, name, buf)
				return -1, fmt.Errorf("%w: %s -> %s", ErrSymlink, p, buf[:max(n, 0)])
			}
		}
		return -1, &fs.PathError{Op: "open", Path: p, Err: err}
	}
}

func (d *leaseDir) Close() error { return d.f.Close() }

// open opens name in the directory, never following a symlink.
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

// same reports whether name is still the file f has open.
func (d *leaseDir) same(name string, f *os.File) bool {
	var cur, open unix.Stat_t
	if unix.Fstatat(int(d.f.Fd()), name, &cur, unix.AT_SYMLINK_NOFOLLOW) != nil || unix.Fstat(int(f.Fd()), &open) != nil {
		return false
	}
	return cur.Dev == open.Dev && cur.Ino == open.Ino
}

// names lists the directory.
func (d *leaseDir) names() ([]string, error) {
	f, err := d.open(".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

func (d *leaseDir) sync() { d.f.Sync() }

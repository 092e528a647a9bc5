//go:build unix

package safeio

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// beneathFlags open one directory: never following a symlink, never
// blocking on anything that is not a directory.
const beneathFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// OpenDirBeneath opens the directory rel (slash-separated, relative)
// below the directory fsRoot for hab-gc to write in: fsRoot itself is
// opened as given (a symlink there is the user's choice, resolved once),
// then each component of rel is opened relative to the descriptor of the
// one before it, with O_NOFOLLOW and O_DIRECTORY: no component is ever a
// symlink followed (one is a *SymlinkError, wrapping ErrSymlink, naming
// it and its target), none can lead out of fsRoot ("." and ".." are
// refused), and nothing that is not a directory is opened (ENOTDIR). With
// create, a missing component is made (mode 0755, mkdirat in its parent's
// descriptor, so never through a symlink); without, it is an error
// wrapping fs.ErrNotExist. A refusal creates nothing below the component
// refused. The returned file is the directory, named fsRoot/rel.
//
// openat2's RESOLVE_NO_SYMLINKS would do the same walk in one call where
// the kernel has it (Linux 5.6+), but cannot create what is missing; the
// walk is the same guarantee everywhere, one component a step.
func OpenDirBeneath(fsRoot, rel string, create bool) (*os.File, error) {
	parts, err := beneathParts(rel)
	if err != nil {
		return nil, err
	}
	fd, err := openatBeneath(unix.AT_FDCWD, fsRoot, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: fsRoot, Err: err}
	}
	p := fsRoot
	for _, name := range parts {
		p = filepath.Join(p, name)
		next, err := openBeneathStep(fd, name, p, create)
		unix.Close(fd)
		if err != nil {
			return nil, err
		}
		fd = next
	}
	return os.NewFile(uintptr(fd), filepath.Join(fsRoot, filepath.FromSlash(rel))), nil
}

// openBeneathStep opens the directory name in dirfd (at path p) without
// following a symlink, making it first with create.
func openBeneathStep(dirfd int, name, p string, create bool) (int, error) {
	for {
		fd, err := openatBeneath(dirfd, name, beneathFlags)
		switch {
		case err == nil:
			return fd, nil
		case err == unix.ENOENT && create:
			if err := unix.Mkdirat(dirfd, name, 0o755); err != nil && err != unix.EEXIST {
				return -1, &fs.PathError{Op: "mkdir", Path: p, Err: err}
			}
			create = false // once: a name that vanishes again is an error
			continue
		case err == unix.ELOOP || err == unix.ENOTDIR || err == unix.EMLINK:
			// O_NOFOLLOW on a symlink: ELOOP (EMLINK on FreeBSD, ENOTDIR
			// with O_DIRECTORY on some kernels).
			var st unix.Stat_t
			if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				buf := make([]byte, 4096)
				n, _ := unix.Readlinkat(dirfd, name, buf)
				return -1, &SymlinkError{Path: p, Target: string(buf[:max(n, 0)])}
			}
		}
		return -1, &fs.PathError{Op: "open", Path: p, Err: err}
	}
}

// openatBeneath is openat(2), retried on EINTR.
func openatBeneath(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

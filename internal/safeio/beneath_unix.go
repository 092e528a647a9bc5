//go:build unix

package safeio

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// dirFlags open a directory: never following a symlink, never blocking.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// OpenDirBeneath opens rel below fsRoot (itself opened as given) for
// hab-gc to write in, one component at a time from its parent's
// descriptor with O_NOFOLLOW: a symlink is a *SymlinkError. With create,
// a missing component is made (mkdirat, 0755). openat2's
// RESOLVE_NO_SYMLINKS cannot create.
func OpenDirBeneath(fsRoot, rel string, create bool) (*os.File, error) {
	parts, err := beneathParts(rel)
	if err != nil {
		return nil, err
	}
	fd, err := openat(unix.AT_FDCWD, fsRoot, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC)
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

func openBeneathStep(dirfd int, name, p string, create bool) (int, error) {
	for {
		fd, err := openat(dirfd, name, dirFlags)
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
			// ELOOP; EMLINK on FreeBSD; ENOTDIR on some kernels.
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

// openat retries on EINTR.
func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

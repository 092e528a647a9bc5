package safeio

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// DirFD is a directory descriptor whose methods take one path component,
// opened with O_NOFOLLOW; no *os.File (and no runtime poller) is made.
// The caller closes it, once.
type DirFD struct{ fd int }

// DirEntry is a name and its type (getdents', else fstatat's).
type DirEntry struct {
	Name string
	Type fs.FileMode // fs.ModeDir, fs.ModeSymlink, ..., 0 for a regular file
}

// DirFDOf duplicates f's descriptor; f stays the caller's.
func DirFDOf(f *os.File) (DirFD, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return DirFD{-1}, err
	}
	fd, derr := -1, error(nil)
	if err := rc.Control(func(s uintptr) {
		fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return DirFD{-1}, err
	}
	if derr != nil {
		return DirFD{-1}, &fs.PathError{Op: "dup", Path: f.Name(), Err: derr}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		unix.Close(fd)
		if err == nil {
			err = unix.ENOTDIR
		}
		return DirFD{-1}, &fs.PathError{Op: "open", Path: f.Name(), Err: err}
	}
	return DirFD{fd}, nil
}

func component(op, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return &fs.PathError{Op: op, Path: name, Err: unix.EINVAL}
	}
	return nil
}

// OpenDir opens the directory name in d; a symlink fails.
func (d DirFD) OpenDir(name string) (DirFD, error) {
	if err := component("open", name); err != nil {
		return DirFD{-1}, err
	}
	fd, err := openat(d.fd, name, dirFlags)
	if err != nil {
		return DirFD{-1}, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return DirFD{fd}, nil
}

func (d DirFD) Close() error { return unix.Close(d.fd) }

// Fd returns the descriptor, still owned by d.
func (d DirFD) Fd() int { return d.fd }

type Stat = unix.Statx_t

// StatMask: the mount ID needs Linux 5.8+ (Mask says when it is missing).
const StatMask = unix.STATX_BASIC_STATS | unix.STATX_MNT_ID

// fstatx falls back to fstat before Linux 4.11.
func fstatx(fd int, st *Stat) error {
	for {
		err := unix.Statx(fd, "", unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW, StatMask, st)
		switch err {
		case unix.EINTR:
			continue
		case unix.ENOSYS:
		default:
			return err
		}
		break
	}
	var s unix.Stat_t
	if err := unix.Fstat(fd, &s); err != nil {
		return err
	}
	*st = Stat{Mask: unix.STATX_BASIC_STATS, Mode: uint16(s.Mode), Ino: s.Ino, Nlink: uint32(s.Nlink),
		Size: uint64(s.Size), Blocks: uint64(s.Blocks),
		Dev_major: unix.Major(s.Dev), Dev_minor: unix.Minor(s.Dev),
		Mtime: unix.StatxTimestamp{Sec: int64(s.Mtim.Sec), Nsec: uint32(s.Mtim.Nsec)},
		Ctime: unix.StatxTimestamp{Sec: int64(s.Ctim.Sec), Nsec: uint32(s.Ctim.Nsec)}}
	return nil
}

func StatTimes(st *Stat) (mtime, ctime time.Time, dev, ino uint64) {
	return time.Unix(st.Mtime.Sec, int64(st.Mtime.Nsec)), time.Unix(st.Ctime.Sec, int64(st.Ctime.Nsec)),
		unix.Mkdev(st.Dev_major, st.Dev_minor), st.Ino
}

func (d DirFD) Stat(st *Stat) error {
	if err := fstatx(d.fd, st); err != nil {
		return &fs.PathError{Op: "statx", Path: ".", Err: err}
	}
	return nil
}

// ReadDirents calls fn with each name of fd but "." and ".." and its
// d_type (getdents: no name is resolved); buf is reused.
func ReadDirents(fd int, buf []byte, fn func(name string, typ uint8)) error {
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		for b := buf[:n]; len(b) >= 19; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(b[16]) | int(b[17])<<8
			if reclen < 19 || reclen > len(b) {
				return fmt.Errorf("malformed directory entry: %w", unix.EINVAL)
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if s := string(name); s != "." && s != ".." {
				fn(s, b[18])
			}
			b = b[reclen:]
		}
	}
}

// Entries appends d's entries to out (see ReadDirents).
func (d DirFD) Entries(buf []byte, out []DirEntry) ([]DirEntry, error) {
	var lerr error
	err := ReadDirents(d.fd, buf, func(name string, typ uint8) {
		var mode fs.FileMode
		switch typ {
		case unix.DT_REG:
		case unix.DT_DIR:
			mode = fs.ModeDir
		case unix.DT_LNK:
			mode = fs.ModeSymlink
		case unix.DT_FIFO:
			mode = fs.ModeNamedPipe
		case unix.DT_SOCK:
			mode = fs.ModeSocket
		case unix.DT_CHR:
			mode = fs.ModeDevice | fs.ModeCharDevice
		case unix.DT_BLK:
			mode = fs.ModeDevice
		default:
			var st unix.Stat_t
			if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				if err != unix.ENOENT && lerr == nil {
					lerr = &fs.PathError{Op: "lstat", Path: name, Err: err}
				}
				return // gone since it was listed
			}
			mode = ModeOf(st.Mode)
		}
		out = append(out, DirEntry{Name: name, Type: mode})
	})
	if err != nil {
		return out, &fs.PathError{Op: "readdirent", Path: ".", Err: err}
	}
	return out, lerr
}

// ReadFile reads the regular file name in d into buf (reused), at most
// limit bytes, and describes it in st.
func (d DirFD) ReadFile(name string, limit int64, buf []byte, st *Stat) ([]byte, error) {
	if err := component("open", name); err != nil {
		return nil, err
	}
	fd, err := openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	if err := fstatx(fd, st); err != nil {
		return nil, &fs.PathError{Op: "statx", Path: name, Err: err}
	}
	if mode := ModeOf(uint32(st.Mode)); !mode.IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: it is a %s", ErrNotRegular, Kind(mode))}
	}
	return readCapped(name, int64(st.Size), limit, buf, func(p []byte) (int, error) {
		for {
			n, err := unix.Read(fd, p)
			if err != unix.EINTR {
				return max(n, 0), err
			}
		}
	})
}

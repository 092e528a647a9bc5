package onefs

import (
	"errors"

	"golang.org/x/sys/unix"
)

type info struct {
	mode        uint32 // S_IFMT bits
	dev, ino    uint64
	mnt         uint64 // mount ID; 0 when unknown
	mountRoot   bool   // statx says: the root of a mount
	nlink       uint64
	blocks      int64
	hasMntField bool
}

func (i info) isDir() bool { return i.mode&unix.S_IFMT == unix.S_IFDIR }

// StatxMask: MeasureOpen's statx must have asked for it too.
const StatxMask = unix.STATX_TYPE | unix.STATX_INO | unix.STATX_NLINK | unix.STATX_BLOCKS | unix.STATX_MNT_ID

func infoOf(sx *unix.Statx_t) info {
	in := info{mode: uint32(sx.Mode), dev: unix.Mkdev(sx.Dev_major, sx.Dev_minor), ino: sx.Ino,
		nlink: uint64(sx.Nlink), blocks: int64(sx.Blocks) * 512}
	if sx.Mask&unix.STATX_MNT_ID != 0 {
		in.mnt, in.hasMntField = sx.Mnt_id, true
	}
	if sx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && sx.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 {
		in.mountRoot = true
	}
	return in
}

// stat of "" describes dirfd itself.
func (w *walker) stat(dirfd int, name string) (info, error) {
	w.ops++
	flags := unix.AT_SYMLINK_NOFOLLOW | unix.AT_NO_AUTOMOUNT
	if name == "" {
		flags |= unix.AT_EMPTY_PATH
	}
	if !w.noStatx {
		var sx unix.Statx_t
		err := unix.Statx(dirfd, name, flags, StatxMask, &sx)
		if err == nil {
			return infoOf(&sx), nil
		}
		if !errors.Is(err, unix.ENOSYS) {
			return info{}, err
		}
		w.noStatx = true // before Linux 4.11: device numbers only
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, flags&^unix.AT_NO_AUTOMOUNT); err != nil {
		return info{}, err
	}
	return info{mode: st.Mode, dev: st.Dev, ino: st.Ino, nlink: uint64(st.Nlink), blocks: st.Blocks * 512}, nil
}

func (w *walker) sameMount(in info) bool {
	if in.dev != w.top.dev {
		return false
	}
	if in.hasMntField && w.top.hasMntField && in.mnt != w.top.mnt {
		return false
	}
	return !in.mountRoot
}

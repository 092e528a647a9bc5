//go:build windows

package winfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// ShareAll: what hab-gc opens never stands in anyone's way.
const ShareAll = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE

// ErrReparsePoint is O_NOFOLLOW's error on Unix.
var ErrReparsePoint = syscall.ELOOP

// Open opens name, one component, in dir; a reparse point is opened
// itself. The arguments are NtCreateFile's; errors are os's (*fs.PathError
// with a syscall.Errno).
func Open(dir windows.Handle, name string, access, share, disposition, options uint32) (windows.Handle, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`+"\x00") {
		return windows.InvalidHandle, &fs.PathError{Op: "open", Path: name, Err: syscall.EINVAL}
	}
	u, err := windows.NewNTUnicodeString(name)
	if err != nil {
		return windows.InvalidHandle, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	oa := windows.OBJECT_ATTRIBUTES{RootDirectory: dir, ObjectName: u, Attributes: windows.OBJ_CASE_INSENSITIVE}
	oa.Length = uint32(unsafe.Sizeof(oa))
	var h windows.Handle
	var iosb windows.IO_STATUS_BLOCK
	st := windows.NtCreateFile(&h, access|windows.SYNCHRONIZE|windows.FILE_READ_ATTRIBUTES, &oa, &iosb, nil,
		windows.FILE_ATTRIBUTE_NORMAL, share, disposition,
		options|windows.FILE_SYNCHRONOUS_IO_NONALERT|windows.FILE_OPEN_REPARSE_POINT|windows.FILE_OPEN_FOR_BACKUP_INTENT, 0, 0)
	if st != nil {
		return windows.InvalidHandle, &fs.PathError{Op: "open", Path: name, Err: errnoOf(st)}
	}
	return h, nil
}

func errnoOf(err error) error {
	var st windows.NTStatus
	if errors.As(err, &st) {
		return st.Errno()
	}
	return err
}

type Info struct {
	Attrs     uint32
	Tag       uint32 // a reparse point's tag; 0 otherwise
	Size      int64  // bytes of data
	Allocated int64  // bytes allocated on disk
	Links     uint32
	Volume    uint32
	Index     uint64
	Creation  windows.Filetime
	LastWrite windows.Filetime
}

// IsDir is true of a junction too: check Reparse first.
func (i Info) IsDir() bool { return i.Attrs&windows.FILE_ATTRIBUTE_DIRECTORY != 0 }

// Reparse: a symlink, a junction, a mount point or a filter's placeholder.
func (i Info) Reparse() bool { return i.Attrs&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 }

// Mount: a junction or a volume mount point, perhaps another volume.
func (i Info) Mount() bool { return i.Reparse() && i.Tag == windows.IO_REPARSE_TAG_MOUNT_POINT }

type fileStandardInfo struct {
	AllocationSize int64
	EndOfFile      int64
	NumberOfLinks  uint32
	DeletePending  byte
	Directory      byte
}

type fileAttributeTagInfo struct {
	FileAttributes uint32
	ReparseTag     uint32
}

func Stat(h windows.Handle) (Info, error) {
	var bi windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &bi); err != nil {
		return Info{}, err
	}
	in := Info{Attrs: bi.FileAttributes, Links: bi.NumberOfLinks, Volume: bi.VolumeSerialNumber,
		Index: uint64(bi.FileIndexHigh)<<32 | uint64(bi.FileIndexLow),
		Size:  int64(bi.FileSizeHigh)<<32 | int64(bi.FileSizeLow), Creation: bi.CreationTime, LastWrite: bi.LastWriteTime}
	in.Allocated = in.Size
	var si fileStandardInfo
	if err := windows.GetFileInformationByHandleEx(h, windows.FileStandardInfo, (*byte)(unsafe.Pointer(&si)), uint32(unsafe.Sizeof(si))); err == nil {
		in.Allocated = si.AllocationSize
	}
	if in.Reparse() {
		var ti fileAttributeTagInfo
		if err := windows.GetFileInformationByHandleEx(h, windows.FileAttributeTagInfo, (*byte)(unsafe.Pointer(&ti)), uint32(unsafe.Sizeof(ti))); err != nil {
			return Info{}, err
		}
		in.Tag = ti.ReparseTag
	}
	return in, nil
}

type fileBasicInfo struct {
	CreationTime, LastAccessTime, LastWriteTime, ChangeTime int64
	FileAttributes                                          uint32
	_                                                       uint32
}

// Delete deletes h when its last handle closes; a read-only file is made
// writable first (given FILE_WRITE_ATTRIBUTES), as Windows refuses it.
func Delete(h windows.Handle, in Info) error {
	if in.Attrs&windows.FILE_ATTRIBUTE_READONLY != 0 {
		bi := fileBasicInfo{FileAttributes: in.Attrs &^ windows.FILE_ATTRIBUTE_READONLY}
		if bi.FileAttributes == 0 {
			bi.FileAttributes = windows.FILE_ATTRIBUTE_NORMAL
		}
		// Zero times leave them unchanged.
		windows.SetFileInformationByHandle(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&bi)), uint32(unsafe.Sizeof(bi)))
	}
	del := struct{ DeleteFile byte }{1}
	return windows.SetFileInformationByHandle(h, windows.FileDispositionInfo, &del.DeleteFile, 1)
}

// Names lists the very directory h, whatever its name leads to now.
func Names(h windows.Handle) ([]os.DirEntry, error) {
	p := windows.CurrentProcess()
	var dup windows.Handle
	if err := windows.DuplicateHandle(p, h, p, &dup, 0, false, windows.DUPLICATE_SAME_ACCESS); err != nil {
		return nil, fmt.Errorf("listing a directory: %w", err)
	}
	f := os.NewFile(uintptr(dup), "")
	defer f.Close()
	return f.ReadDir(-1)
}

// LongPath adds to an absolute path the \\?\ prefix that lifts MAX_PATH
// (os adds it itself; the windows package does not).
func LongPath(p string) string {
	switch {
	case strings.HasPrefix(p, `\\?\`) || strings.HasPrefix(p, `\??\`):
		return p
	case strings.HasPrefix(p, `\\`):
		return `\\?\UNC\` + strings.ReplaceAll(p[2:], "/", `\`)
	case len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/'):
		return `\\?\` + strings.ReplaceAll(p, "/", `\`)
	}
	return p
}

// InUse: open without FILE_SHARE_DELETE (a running program, a DLL). Renaming
// a directory holding such a file gives ERROR_ACCESS_DENIED, as an ACL
// does; either way the release is kept.
func InUse(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_LOCK_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED)
}

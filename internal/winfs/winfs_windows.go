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

// ShareAll lets others read, write and delete what is open: what hab-gc
// opens never stands in anyone's way.
const ShareAll = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE

// ErrReparsePoint is wrapped by the error of an open that met a reparse
// point (a symlink, a junction or a mount point) and did not follow it. It
// is syscall.ELOOP, as O_NOFOLLOW's error on Unix.
var ErrReparsePoint = syscall.ELOOP

// Open opens name, one component (no separator), relative to the open
// directory dir, never following a reparse point: what is there is opened
// itself (FILE_OPEN_REPARSE_POINT). access and disposition are
// NtCreateFile's (windows.FILE_OPEN, FILE_CREATE, ...); options are added
// to synchronous I/O, FILE_OPEN_REPARSE_POINT and
// FILE_OPEN_FOR_BACKUP_INTENT (which opens directories). Errors are
// *fs.PathError with a syscall.Errno (ERROR_FILE_NOT_FOUND,
// ERROR_SHARING_VIOLATION, ...), as os's.
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

// errnoOf turns an NTSTATUS into the Win32 error os reports.
func errnoOf(err error) error {
	var st windows.NTStatus
	if errors.As(err, &st) {
		return st.Errno()
	}
	return err
}

// Info is what a handle says of its file.
type Info struct {
	Attrs uint32
	// Tag is the reparse tag (windows.IO_REPARSE_TAG_SYMLINK,
	// IO_REPARSE_TAG_MOUNT_POINT, ...) of a reparse point; 0 otherwise.
	Tag       uint32
	Size      int64 // bytes of data
	Allocated int64 // bytes allocated on disk
	Links     uint32
	Volume    uint32
	Index     uint64 // the file's number on its volume
	Creation  windows.Filetime
	LastWrite windows.Filetime
}

// IsDir reports a directory (a junction is one too: check Reparse first).
func (i Info) IsDir() bool { return i.Attrs&windows.FILE_ATTRIBUTE_DIRECTORY != 0 }

// Reparse reports a reparse point: a symlink, a junction, a volume mount
// point or another file system filter's placeholder.
func (i Info) Reparse() bool { return i.Attrs&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 }

// Mount reports a junction or a volume mount point
// (IO_REPARSE_TAG_MOUNT_POINT): another tree, perhaps another volume.
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

// Stat reads h's Info.
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

// Delete marks the file open as h (opened with DELETE access) for
// deletion when its last handle closes: the plain kind, not the POSIX
// semantics. A read-only file is made writable first (Windows refuses to
// delete one: ERROR_ACCESS_DENIED) when h has FILE_WRITE_ATTRIBUTES. A
// directory must be empty (ERROR_DIR_NOT_EMPTY).
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

// Names lists the directory open as h (opened with FILE_LIST_DIRECTORY),
// through a duplicate of the handle, so that the listing is of the very
// directory checked, whatever its name leads to now.
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

// LongPath returns an absolute path with the \\?\ prefix Windows needs to
// go past MAX_PATH (260 characters) in the calls that take a path, so that
// no path is too long; a relative path or one already prefixed is as
// given. (os adds the prefix itself: this is for the windows package.)
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

// InUse reports the errors Windows gives when a file or a directory
// holding one is open by a process that did not allow its deletion or
// renaming (FILE_SHARE_DELETE): a running program, a loaded DLL, an open
// log. ERROR_ACCESS_DENIED is among them, since renaming a directory with
// such a file inside fails so; it also means an ACL forbids the change,
// and either way the release is kept.
func InUse(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_LOCK_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED)
}

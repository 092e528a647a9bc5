//go:build windows

package winfs

import (
	"io/fs"
	"unsafe"

	"golang.org/x/sys/windows"
)

const (
	fileAddFile         = windows.FILE_WRITE_DATA
	fileAddSubdirectory = windows.FILE_APPEND_DATA
)

// OpenDirAt opens directory name in dir: a reparse point there is
// ErrReparsePoint, a file ERROR_DIRECTORY; create makes a missing one.
func OpenDirAt(dir windows.Handle, name string, create bool) (windows.Handle, error) {
	disp := uint32(windows.FILE_OPEN)
	if create {
		disp = windows.FILE_OPEN_IF
	}
	h, err := Open(dir, name, windows.FILE_LIST_DIRECTORY|windows.FILE_TRAVERSE|fileAddFile|fileAddSubdirectory,
		ShareAll, disp, windows.FILE_DIRECTORY_FILE)
	if err != nil {
		return windows.InvalidHandle, err
	}
	if err := checkDir(h, name); err != nil {
		windows.CloseHandle(h)
		return windows.InvalidHandle, err
	}
	return h, nil
}

// OpenDirPath is OpenDirAt for an absolute path; only its last component
// is not followed.
func OpenDirPath(path string) (windows.Handle, error) {
	p, err := windows.UTF16PtrFromString(LongPath(path))
	if err != nil {
		return windows.InvalidHandle, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.FILE_LIST_DIRECTORY|windows.FILE_TRAVERSE|fileAddFile|fileAddSubdirectory|windows.FILE_READ_ATTRIBUTES|windows.SYNCHRONIZE,
		ShareAll, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return windows.InvalidHandle, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if err := checkDir(h, path); err != nil {
		windows.CloseHandle(h)
		return windows.InvalidHandle, err
	}
	return h, nil
}

func checkDir(h windows.Handle, name string) error {
	in, err := Stat(h)
	switch {
	case err != nil:
	case in.Reparse():
		err = ErrReparsePoint
	case !in.IsDir():
		err = windows.ERROR_DIRECTORY
	}
	if err != nil {
		return &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return nil
}

type fileRenameInformation struct {
	ReplaceIfExists uint32 // a BOOLEAN, padded
	RootDirectory   windows.Handle
	FileNameLength  uint32
	FileName        [1]uint16
}

// Rename is renameat within dir, not following a reparse point, the plain
// kind (not POSIX semantics): a file open without FILE_SHARE_DELETE cannot
// be renamed or replaced, and a directory replaces nothing.
func Rename(dir windows.Handle, from, to string) error {
	h, err := Open(dir, from, windows.DELETE, ShareAll, windows.FILE_OPEN, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	name, err := windows.UTF16FromString(to)
	if err != nil || to == "" || to == "." || to == ".." || containsSep(to) {
		return &fs.PathError{Op: "rename", Path: to, Err: windows.ERROR_INVALID_NAME}
	}
	n := (len(name) - 1) * 2 // bytes, without the NUL
	var info fileRenameInformation
	buf := make([]byte, int(unsafe.Offsetof(info.FileName))+n+2)
	ri := (*fileRenameInformation)(unsafe.Pointer(&buf[0]))
	ri.ReplaceIfExists = 1
	ri.RootDirectory = dir
	ri.FileNameLength = uint32(n)
	copy(unsafe.Slice(&ri.FileName[0], len(name)), name)
	var iosb windows.IO_STATUS_BLOCK
	if st := windows.NtSetInformationFile(h, &iosb, &buf[0], uint32(len(buf)), windows.FileRenameInformation); st != nil {
		return &fs.PathError{Op: "rename", Path: from, Err: errnoOf(st)}
	}
	return nil
}

func containsSep(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' || s[i] == '\\' || s[i] == 0 {
			return true
		}
	}
	return false
}

// Remove is unlinkat within dir; a symlink is deleted itself.
func Remove(dir windows.Handle, name string) error {
	h, err := Open(dir, name, windows.DELETE|windows.FILE_WRITE_ATTRIBUTES, ShareAll, windows.FILE_OPEN, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	in, err := Stat(h)
	if err == nil {
		err = Delete(h, in)
	}
	if err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	return nil
}

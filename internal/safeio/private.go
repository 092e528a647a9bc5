package safeio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrUnsafe is wrapped by the error of OpenPrivate when what sits at the
// name may not be used as a private file (a lock or state file).
var ErrUnsafe = errors.New("unsafe file")

// UnsafeError says why a file at a name is refused.
type UnsafeError struct {
	Path string
	Why  string
}

func (e *UnsafeError) Error() string { return fmt.Sprintf("%v %s: %s", ErrUnsafe, e.Path, e.Why) }

func (e *UnsafeError) Is(target error) bool { return target == ErrUnsafe }

// Private says why the file fi describes (fstat of an open descriptor) may
// not serve as a private file that hab-gc locks or writes: "" when it may.
// It must be a regular file with exactly one link (not a hard link to a
// file elsewhere), whose owner ownerOK accepts.
func Private(fi fs.FileInfo, ownerOK func(uid int) bool) string {
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Sprintf("it is a %s, not a regular file; remove it", Kind(fi.Mode()))
	case st == nil:
		return "its owner and links cannot be checked on this platform"
	case st.Nlink != 1:
		return fmt.Sprintf("it has %d links (a hard link to another file?); remove it", st.Nlink)
	case !ownerOK(int(st.Uid)):
		return fmt.Sprintf("it is owned by uid %d, not by this user (uid %d); remove it or run as its owner", st.Uid, os.Geteuid())
	}
	return ""
}

// Owner returns the uid that owns the file fi describes, or -1.
func Owner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// IsEUID accepts the effective user only.
func IsEUID(uid int) bool { return uid == os.Geteuid() }

// OpenPrivate opens the private file name inside root with flag (O_CREATE
// creates it mode 0600), never following a symlink, never blocking, and
// never opening at all what Lstat shows is not a regular file (a device
// node is not even opened). The open descriptor is checked with Private;
// a refusal is an *UnsafeError, and nothing was written. With tighten, a
// file whose mode is not 0600 is set to 0600 through the descriptor.
func OpenPrivate(root *os.Root, name string, flag int, ownerOK func(uid int) bool, tighten bool) (*os.File, error) {
	path := filepath.Join(root.Name(), name)
	if fi, err := root.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return nil, &UnsafeError{Path: path, Why: fmt.Sprintf("it is a %s, not a regular file; remove it", Kind(fi.Mode()))}
	}
	f, err := OpenAt(root, name, flag|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, &UnsafeError{Path: path, Why: "it is a symlink; remove it"}
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if why := Private(fi, ownerOK); why != "" {
		f.Close()
		return nil, &UnsafeError{Path: path, Why: why}
	}
	if tighten && fi.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, fmt.Errorf("setting %s to mode 0600: %w", path, err)
		}
	}
	return f, nil
}

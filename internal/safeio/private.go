package safeio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

var ErrUnsafe = errors.New("unsafe file")

// UnsafeError says why a file at a name is refused.
type UnsafeError struct {
	Path string
	Why  string
}

func (e *UnsafeError) Error() string { return fmt.Sprintf("%v %s: %s", ErrUnsafe, e.Path, e.Why) }

func (e *UnsafeError) Is(target error) bool { return target == ErrUnsafe }

// IsEUID accepts the effective user only.
func IsEUID(uid int) bool { return uid == os.Geteuid() }

// OpenPrivate opens a lock or state file inside root (created 0600),
// never through a symlink, never opening what Lstat shows is not a
// regular file, and checks the descriptor with Private; with tighten, it
// sets mode 0600.
func OpenPrivate(root *os.Root, name string, flag int, ownerOK func(uid int) bool, tighten bool) (*os.File, error) {
	path := filepath.Join(root.Name(), name)
	if fi, err := root.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return nil, &UnsafeError{Path: path, Why: fmt.Sprintf("it is a %s, not a regular file; remove it", Kind(fi.Mode()))}
	}
	f, err := OpenAt(root, name, flag|nonBlocking, 0o600)
	if isLoop(err) {
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
	why := Private(fi, ownerOK)
	if why == "" {
		why = privateHandle(f)
	}
	if why != "" {
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

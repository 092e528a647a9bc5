package onefs

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// OpenDir opens rel, a slash-separated path relative to the open directory
// dir, one component at a time without following any symlink; every
// component must be a directory.
func OpenDir(dir *os.File, rel string) (*os.File, error) {
	fd := int(dir.Fd())
	owned := -1
	for part := range strings.SplitSeq(rel, "/") {
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			if owned >= 0 {
				unix.Close(owned)
			}
			return nil, &os.PathError{Op: "open", Path: rel, Err: unix.EINVAL}
		}
		next, err := openDir(fd, part)
		if owned >= 0 {
			unix.Close(owned)
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: rel, Err: err}
		}
		fd, owned = next, next
	}
	if owned < 0 {
		next, err := openDir(fd, ".")
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: rel, Err: err}
		}
		owned = next
	}
	return os.NewFile(uintptr(owned), rel), nil
}

//go:build windows

package safeio

import (
	"errors"
	"os"
	"path"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/winfs"
)

// RemoveAt removes name (a file, a reparse point or an empty directory)
// inside root, never following a reparse point at its last component
// (the link itself is removed): root.Remove, which deletes with POSIX
// semantics; where the system does not implement those
// (ERROR_INVALID_FUNCTION: Wine 8.0, whose NtSetInformationFile lacks
// FileDispositionInformationEx, a case Go's own fallback does not cover),
// the plain deletion (winfs.Remove), relative to the handle of name's
// directory opened through root: a file held open then keeps its name
// until its last handle closes.
func RemoveAt(root *os.Root, name string) error {
	err := root.Remove(name)
	if !errors.Is(err, windows.ERROR_INVALID_FUNCTION) {
		return err
	}
	dir, base := path.Split(name)
	if dir == "" {
		dir = "."
	}
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return winfs.Remove(windows.Handle(d.Fd()), base)
}

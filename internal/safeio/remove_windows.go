//go:build windows

package safeio

import (
	"errors"
	"os"
	"path"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/winfs"
)

// RemoveAt removes name inside root, never following a reparse point at
// its last component; where POSIX deletion is missing
// (ERROR_INVALID_FUNCTION: Wine 8.0), the plain one (winfs.Remove).
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

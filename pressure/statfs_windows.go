//go:build windows

package pressure

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/winfs"
)

// Statfs returns a FreeFunc reading GetDiskFreeSpaceEx of the volume that
// holds path (a directory, or a file's directory): Avail is the bytes
// free to this user (its disk quota counted, as f_bavail counts the
// blocks reserved for root), Total the volume's size as this user sees
// it. A path on a volume mounted in a directory is that volume's.
func Statfs(path string) FreeFunc {
	return func() (Space, error) {
		dir := path
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			dir = filepath.Dir(path)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return Space{}, fmt.Errorf("free space of %s: %w", path, err)
		}
		// A trailing separator: GetDiskFreeSpaceEx takes a directory
		// ("C:\hab\pkgs\"); a UNC path needs one.
		p, err := windows.UTF16PtrFromString(winfs.LongPath(abs) + `\`)
		if err != nil {
			return Space{}, fmt.Errorf("free space of %s: %w", path, err)
		}
		var avail, total, free uint64
		if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &free); err != nil {
			return Space{}, fmt.Errorf("free space of %s: %w", path, err)
		}
		return Space{Avail: int64(avail), Total: int64(total)}, nil
	}
}

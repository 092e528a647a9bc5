//go:build windows

package pressure

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/winfs"
)

// Statfs reads GetDiskFreeSpaceEx of the volume that holds path (quota
// counted, as f_bavail leaves out root's reserve).
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
		// A UNC path needs the trailing separator.
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

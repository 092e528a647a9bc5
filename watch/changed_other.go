//go:build !linux && !darwin

package watch

import (
	"os"
	"time"
)

// changed is path's modification time (not followed): there is no
// portable change time here. (The store cannot be opened off Unix:
// pkgstore.Open fails with errors.ErrUnsupported before a watcher looks.)
func changed(path string) (time.Time, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

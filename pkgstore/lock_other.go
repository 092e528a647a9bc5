//go:build !unix && !windows

package pkgstore

import (
	"errors"
	"fmt"
	"io/fs"
)

const (
	lockExclusive = 2
	lockShared    = 1
)

// tryFlock is only implemented on Unix (flock).
func tryFlock(fd uintptr, how int) (bool, error) {
	return false, fmt.Errorf("locking the store: %w", errors.ErrUnsupported)
}

// flockHolders is only implemented on Linux (/proc/locks).
func flockHolders(fi fs.FileInfo) ([]int, error) { return nil, errors.ErrUnsupported }

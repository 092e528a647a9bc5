//go:build !linux && !darwin && !windows

package pressure

import (
	"errors"
	"fmt"
)

// Statfs returns a FreeFunc for the file system that holds path. It is
// only implemented on Linux, macOS (statfs(2)) and Windows
// (GetDiskFreeSpaceEx): elsewhere the FreeFunc fails with an error
// wrapping errors.ErrUnsupported, so no free-space goal is ever taken as
// met.
func Statfs(path string) FreeFunc {
	return func() (Space, error) {
		return Space{}, fmt.Errorf("free space of %s: %w", path, errors.ErrUnsupported)
	}
}

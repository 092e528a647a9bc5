//go:build !linux && !darwin && !windows

package pressure

import (
	"errors"
	"fmt"
)

// Statfs fails here (errors.ErrUnsupported): no goal is taken as met.
func Statfs(path string) FreeFunc {
	return func() (Space, error) {
		return Space{}, fmt.Errorf("free space of %s: %w", path, errors.ErrUnsupported)
	}
}

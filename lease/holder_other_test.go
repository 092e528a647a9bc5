//go:build !unix && !windows

package lease_test

import (
	"errors"
	"os"
)

// lockExclusive needs flock(2): Unix only.
func lockExclusive(f *os.File) error { return errors.ErrUnsupported }

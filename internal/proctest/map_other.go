//go:build !unix

package proctest

import (
	"errors"
	"fmt"
	"os"
)

// mapFile is only implemented on Unix (mmap): elsewhere the Map helper
// fails with an error wrapping errors.ErrUnsupported.
func mapFile(f *os.File, size int) ([]byte, error) {
	return nil, fmt.Errorf("mapping %s: %w", f.Name(), errors.ErrUnsupported)
}

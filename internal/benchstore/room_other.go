//go:build !linux && !darwin

package benchstore

import (
	"errors"
	"fmt"
	"os"
)

// lockFile needs flock(2) and checkRoom statfs(2): Linux and macOS only.
// Elsewhere Get skips the benchmark.
func lockFile(f *os.File) (unlock func(), err error) {
	return nil, fmt.Errorf("benchstore: lock %s: %w", f.Name(), errors.ErrUnsupported)
}

func checkRoom(dir string, n int) error {
	return fmt.Errorf("benchstore: free space under %s: %w", dir, errors.ErrUnsupported)
}

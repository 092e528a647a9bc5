//go:build !unix && !windows

package schedule

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

// flockBounded needs flock(2) or LockFileEx (Unix, Windows): elsewhere a
// state update fails with an error wrapping errors.ErrUnsupported, and
// the scheduler goes on with the state in memory.
func flockBounded(rc syscall.RawConn, timeout time.Duration) error {
	return fmt.Errorf("locking the schedule state: %w", errors.ErrUnsupported)
}

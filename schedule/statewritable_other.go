//go:build !unix && !windows

package schedule

import "errors"

// writable is only implemented on Unix (access(2)): elsewhere it fails
// with errors.ErrUnsupported.
func writable(path string) error { return errors.ErrUnsupported }

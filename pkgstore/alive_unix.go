//go:build unix

package pkgstore

import (
	"errors"
	"fmt"
	"syscall"
)

// alive returns nil when process pid exists (one hab-gc may not signal
// included), else an error saying it does not.
func alive(pid int) error {
	err := syscall.Kill(pid, 0)
	if err == nil || errors.Is(err, syscall.EPERM) {
		return nil
	}
	return fmt.Errorf("names process %d, which is not running (%v)", pid, err)
}

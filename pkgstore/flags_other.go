//go:build !unix && !windows

package pkgstore

import (
	"errors"
	"fmt"
)

// No O_DIRECTORY or O_NOFOLLOW: never used, since supported fails first.
const (
	oDirectory = 0
	oNoFollow  = 0
)

// supported fails off Unix: reading and changing a store safely needs
// openat with O_NOFOLLOW, flock and stat's owner and link count. Habitat's
// Windows stores (C:\hab\pkgs) are not handled yet.
func supported() error {
	return fmt.Errorf("hab-gc on this platform: %w (Windows stores at C:\\hab\\pkgs are not handled yet)", errors.ErrUnsupported)
}

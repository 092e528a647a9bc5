//go:build unix

package pkgstore

import "syscall"

const (
	oDirectory = syscall.O_DIRECTORY
	oNoFollow  = syscall.O_NOFOLLOW
)

// supported: the store is read and changed with Unix calls (openat,
// O_NOFOLLOW, flock, stat's owner and links).
func supported() error { return nil }

//go:build unix

package schedule

import "golang.org/x/sys/unix"

// writable asks the kernel whether this process may write path
// (access(2) with W_OK: the real user's permissions).
func writable(path string) error { return unix.Access(path, unix.W_OK) }

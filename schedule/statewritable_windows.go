//go:build windows

package schedule

import "github.com/hab-gc/hab-gc/internal/winfs"

// writable asks Windows whether this process may write path: an open
// for FILE_WRITE_DATA, checked against its ACL, its read-only attribute
// and others' handles, and closed (winfs.Writable).
func writable(path string) error { return winfs.Writable(path) }

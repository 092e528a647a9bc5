//go:build !linux

package retention_test

import "errors"

// The mount tests need Linux mounts (tmpfs, bind): elsewhere mounting
// fails and mountAt skips the test.
func mountTmpfs(dir string) error     { return errors.ErrUnsupported }
func bindMount(src, dir string) error { return errors.ErrUnsupported }
func unmount(dir string)              {}
func sameDevice(a, b string) bool     { return false }

//go:build linux

package runroots

import "syscall"

var errESRCH error = syscall.ESRCH

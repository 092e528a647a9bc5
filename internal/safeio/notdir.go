package safeio

import "syscall"

// ErrNotDir is syscall.ENOTDIR worded "not a directory" everywhere (on
// Windows ENOTDIR's text says the path cannot be found).
var ErrNotDir error = notDirError{}

type notDirError struct{}

func (notDirError) Error() string { return "not a directory" }

func (notDirError) Is(target error) bool { return target == syscall.ENOTDIR }

package safeio

import "syscall"

// ErrNotDir is syscall.ENOTDIR said in words on every system, "not a
// directory" (errors.Is(ErrNotDir, syscall.ENOTDIR) holds): on Windows
// syscall.ENOTDIR is ERROR_PATH_NOT_FOUND, whose own text says the path
// cannot be found, of a file that is there.
var ErrNotDir error = notDirError{}

type notDirError struct{}

func (notDirError) Error() string { return "not a directory" }

func (notDirError) Is(target error) bool { return target == syscall.ENOTDIR }

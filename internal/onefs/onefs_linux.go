package onefs

import (
	"errors"
	"fmt"
)

// Supported is true where Walk and RemoveAll are implemented.
const Supported = true

var (
	ErrMountPoint = errors.New("mount point inside the tree")
	ErrChanged    = errors.New("the tree changed while being walked")
)

// MountError names a mount point met in a tree.
type MountError struct {
	Path string // relative to the top, slash-separated
}

func (e *MountError) Error() string {
	return fmt.Sprintf("%s is a mount point (another file system or a bind mount); nothing under it is touched", e.Path)
}

func (e *MountError) Unwrap() error { return ErrMountPoint }

// Usage is what Walk found.
type Usage struct {
	// Bytes is st_blocks × 512 on the top's mount, hard links once.
	Bytes  int64
	Mounts []string // met, not entered
	Ops    int      // opens and stats, each resolving one name
}

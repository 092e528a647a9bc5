package onefs

import (
	"errors"
	"fmt"
)

// Supported is true where Walk and RemoveAll are implemented.
const Supported = true

// ErrMountPoint is wrapped by the error RemoveAll returns when the tree
// holds a mount point.
var ErrMountPoint = errors.New("mount point inside the tree")

// ErrChanged is wrapped when a directory was replaced while being walked.
var ErrChanged = errors.New("the tree changed while being walked")

// MountError names a mount point met in a tree.
type MountError struct {
	// Path is relative to the top of the tree, slash-separated.
	Path string
}

func (e *MountError) Error() string {
	return fmt.Sprintf("%s is a mount point (another file system or a bind mount); nothing under it is touched", e.Path)
}

func (e *MountError) Unwrap() error { return ErrMountPoint }

// Usage is what Walk found.
type Usage struct {
	// Bytes is the space allocated (st_blocks × 512) to everything on the
	// top's mount, the top included, hard-linked files counted once. Zero
	// when Walk was not asked to measure.
	Bytes int64
	// Mounts are the mount points met (relative to the top, in walk
	// order); Walk does not enter them.
	Mounts []string
	// Ops counts the open and stat calls made; each resolves exactly one
	// name relative to an open directory. The work is linear: about two
	// per entry and three per directory.
	Ops int
}

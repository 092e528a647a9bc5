//go:build !linux && !windows

package onefs

import (
	"errors"
	"os"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// Supported is true where Walk and RemoveAll are implemented.
const Supported = false

// ErrMountPoint is wrapped by the error RemoveAll returns when the tree
// holds a mount point.
var ErrMountPoint = errors.New("mount point inside the tree")

// MountError names a mount point met in a tree.
type MountError struct{ Path string }

func (e *MountError) Error() string { return e.Path + " is a mount point" }
func (e *MountError) Unwrap() error { return ErrMountPoint }

// Usage is what Walk found.
type Usage struct {
	Bytes  int64
	Mounts []string
	Ops    int
}

// Walk is only implemented on Linux.
func Walk(dir *os.File, measure bool) (Usage, error) { return Usage{}, errors.ErrUnsupported }

// WalkAt is only implemented on Linux.
func WalkAt(dirfd int, name string, measure bool, bufs *Buffers) (Usage, error) {
	return Usage{}, errors.ErrUnsupported
}

// RemoveAll is only implemented on Linux.
func RemoveAll(parent *os.File, name string) (int, error) { return 0, errors.ErrUnsupported }

// OpenDir is only implemented on Linux.
func OpenDir(dir *os.File, rel string) (*os.File, error) { return nil, errors.ErrUnsupported }

// MeasureOpen is only implemented on Linux.
func MeasureOpen(fd int, top *safeio.Stat, known func(name string) *safeio.Stat, bufs *Buffers) (Usage, error) {
	return Usage{}, errors.ErrUnsupported
}

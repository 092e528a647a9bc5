//go:build !linux && !windows

package onefs

import (
	"errors"
	"os"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

const Supported = false

var ErrMountPoint = errors.New("mount point inside the tree")

type MountError struct{ Path string }

func (e *MountError) Error() string { return e.Path + " is a mount point" }
func (e *MountError) Unwrap() error { return ErrMountPoint }

type Usage struct {
	Bytes  int64
	Mounts []string
	Ops    int
}

func Walk(dir *os.File, measure bool) (Usage, error) { return Usage{}, errors.ErrUnsupported }

func WalkAt(dirfd int, name string, measure bool, bufs *Buffers) (Usage, error) {
	return Usage{}, errors.ErrUnsupported
}

func RemoveAll(parent *os.File, name string) (int, error) { return 0, errors.ErrUnsupported }

func OpenDir(dir *os.File, rel string) (*os.File, error) { return nil, errors.ErrUnsupported }

func MeasureOpen(fd int, top *safeio.Stat, known func(name string) *safeio.Stat, bufs *Buffers) (Usage, error) {
	return Usage{}, errors.ErrUnsupported
}

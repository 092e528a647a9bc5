//go:build !unix && !windows

package lease

import (
	"errors"
	"fmt"
	"os"
)

const oNonBlock = 0

var errWouldBlock = errors.New("lock held")

// Leases need Unix's or Windows' locks and directory handles.
var errPlatform = fmt.Errorf("leases on this platform: %w", errors.ErrUnsupported)

func flockNB(f *os.File, exclusive bool) error { return errPlatform }

type leaseDir struct{ path string }

func openLeaseDir(fsRoot string, write, create bool) (*leaseDir, error) { return nil, errPlatform }

func (d *leaseDir) Close() error { return errPlatform }
func (d *leaseDir) open(name string, flag int, perm os.FileMode) (*os.File, error) {
	return nil, errPlatform
}
func (d *leaseDir) remove(name string) error          { return errPlatform }
func (d *leaseDir) rename(from, to string) error      { return errPlatform }
func (d *leaseDir) same(name string, f *os.File) bool { return false }
func (d *leaseDir) names() ([]string, error)          { return nil, errPlatform }
func (d *leaseDir) sync()                             {}

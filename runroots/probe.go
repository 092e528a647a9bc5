package runroots

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrBlind is wrapped by the error of a Finder that could not inspect
// every process and cannot check the releases about to be removed another
// way (and is not BestEffort).
var ErrBlind = errors.New("refusing to prune blind")

// leaseProbe checks release directories with write leases: the kernel
// refuses an exclusive write lease on a file (fcntl F_SETLEASE F_WRLCK,
// EAGAIN) while any other open file description of it exists, which a
// process that holds it open, has it mapped (also after closing the
// descriptor) or executes it has, in whatever mount or PID namespace, seen
// by /proc or not. Checked on Linux 6.18; see the README (Runtime roots)
// for what it does not catch.
//
// It also checks the archives of the artifact cache, as an install by a
// process /proc does not show holds one open while Habitat reads and
// verifies it (Held): an archive some process has open is an install in
// progress of its release (pkgstore.HeldArchive), and removals wait.
type leaseProbe struct {
	fsRoot     string
	store      string // the store directory
	scan       *Result
	bestEffort bool
}

// blindText says what the scan could not see, e.g. "118 of 119 processes
// could not be inspected fully (no CAP_SYS_PTRACE)".
func (r *Result) blindText() string {
	if n := r.Denied + r.Failed; n > 0 {
		return fmt.Sprintf("%d of %d processes could not be inspected fully (%s)", n, r.Processes, r.whyBlind())
	}
	return fmt.Sprintf("processes may be missing from the %d listed (%s)", r.Processes, r.whyBlind())
}

// storeDir is the store under fsRoot.
func storeDir(fsRoot string) string {
	if fsRoot == "" {
		fsRoot = "/"
	}
	return filepath.Join(fsRoot, pkgstore.StoreDir)
}

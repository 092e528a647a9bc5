package runroots

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// Blind reports whether the scan may have missed a use. A Vanished
// process uses nothing any more.
func (r *procScan) Blind() bool {
	return r.Denied > 0 || r.Failed > 0 || r.hiding() || r.ChildPIDNamespace || r.Partial != ""
}

// deniedOne notes a Denied process.
func (r *procScan) deniedOne(pid int, comm string) {
	if r.deniedExample != "" && pid > r.deniedPID {
		return
	}
	r.deniedPID, r.deniedExample = pid, fmt.Sprintf("process %d", pid)
	if comm != "" {
		r.deniedExample += " (" + printable(comm) + ")"
	}
}

// notice says which processes could not be inspected, why, and done,
// what was done about it ("" when the scan saw everything).
func (r *procScan) notice(done string) string {
	if !r.Blind() {
		return ""
	}
	var s string
	switch {
	case r.Denied > 0:
		s = r.deniedExample
		if n := r.Denied - 1; n > 0 {
			others := "processes"
			if n == 1 {
				others = "process"
			}
			s += fmt.Sprintf(" and %d other %s", n, others)
		}
		s += " could not be inspected fully (" + r.whyBlind() + ")"
	case r.Failed > 0:
		s = fmt.Sprintf("%d process(es) could not be read (%s)", r.Failed, r.FailedExample)
	default:
		s = r.blindText()
	}
	return s + ": " + done
}

// hiding reports whether hidepid may keep processes out of the listing.
func (r *procScan) hiding() bool {
	return r.HidePID != "" && (r.NotRoot || r.NoPtrace)
}

func (r *procScan) whyBlind() string {
	var why []string
	switch {
	case r.NotRoot:
		why = append(why, "not root")
	case r.NoPtrace:
		why = append(why, "no CAP_SYS_PTRACE")
	}
	if r.hiding() {
		why = append(why, "/proc mounted with hidepid="+r.HidePID)
	}
	if r.ChildPIDNamespace {
		why = append(why, "in a child PID namespace: processes outside it are not listed")
	}
	if r.Partial != "" {
		why = append(why, r.Partial)
	}
	if r.Failed > 0 {
		why = append(why, r.FailedExample)
	}
	if len(why) == 0 {
		why = append(why, "permission denied")
	}
	return strings.Join(why, "; ")
}

// ErrBlind is wrapped by a ModeOn finder's error when it could not see
// every process and cannot check the releases to remove another way.
var ErrBlind = errors.New("refusing to prune blind")

// leaseProbe checks the releases to remove, and the artifact cache's
// archives (an install /proc does not show holds one open), for files
// another process has open (see the package doc).
type leaseProbe struct {
	fsRoot, store string
	scan          *procScan
	bestEffort    bool
}

// blindText is e.g. "118 of 119 processes could not be inspected fully
// (no CAP_SYS_PTRACE)".
func (r *procScan) blindText() string {
	if n := r.Denied + r.Failed; n > 0 {
		return fmt.Sprintf("%d of %d processes could not be inspected fully (%s)", n, r.Processes, r.whyBlind())
	}
	return fmt.Sprintf("processes may be missing from the %d listed (%s)", r.Processes, r.whyBlind())
}

func storeDir(fsRoot string) string {
	if fsRoot == "" {
		fsRoot = "/"
	}
	return filepath.Join(fsRoot, pkgstore.StoreDir)
}

package runroots

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

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
type leaseProbe struct {
	store      string // the store directory
	scan       *Result
	bestEffort bool
}

// probeStats is what one probe did.
type probeStats struct {
	files, busy, unprobed, releasesUnprobed int
	example                                 string // why a file could not be checked
}

// mapsUnseen reports whether the scan may have missed a mapping: a
// process whose maps it could not read, or one it could not see at all.
func (lp leaseProbe) mapsUnseen() bool {
	r := lp.scan
	return r.MapsDenied > 0 || r.Failed > 0 || r.hiding()
}

// blindText says what the scan could not see, e.g. "118 of 119 processes
// could not be inspected fully (no CAP_SYS_PTRACE)".
func (r *Result) blindText() string {
	if n := r.Denied + r.Failed; n > 0 {
		return fmt.Sprintf("%d of %d processes could not be inspected fully (%s)", n, r.Processes, r.whyBlind())
	}
	return fmt.Sprintf("processes may be missing from the %d listed (%s)", r.Processes, r.whyBlind())
}

// remedy says how to see what the scan could not.
func (r *Result) remedy() string {
	var how []string
	switch {
	case r.NotRoot:
		how = append(how, "run as root")
	case r.NoPtrace:
		how = append(how, "grant CAP_SYS_PTRACE")
	}
	if r.ChildPIDNamespace {
		how = append(how, "run in the host's PID namespace")
	}
	how = append(how, "accept what cannot be seen with best-effort runtime roots")
	return strings.Join(how, ", or ")
}

func busyText(file string) string {
	return fmt.Sprintf("a process has %s open, mapped or executing (a write lease on it is refused; /proc does not show every process fully)", printable(file))
}

func (st probeStats) summary(releases int) string {
	s := fmt.Sprintf("write leases: %d file(s) of %d release(s) to remove checked, %d release(s) in use", st.files, releases, st.busy)
	if st.unprobed > 0 {
		s += fmt.Sprintf(", %d file(s) could not be checked (%s)", st.unprobed, st.example)
	}
	return s
}

// cannot records a directory that could not be examined at all.
func (st *probeStats) cannot(rel string, err error) {
	st.unprobed++
	if st.example == "" {
		st.example = rel + ": " + err.Error()
	}
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

// storeDir is the store under fsRoot.
func storeDir(fsRoot string) string {
	if fsRoot == "" {
		fsRoot = "/"
	}
	return filepath.Join(fsRoot, pkgstore.StoreDir)
}

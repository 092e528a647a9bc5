package runroots

import (
	"fmt"
	"strings"
)

// Blind reports whether the scan may have missed a use: some process could
// not be read whole (Denied, Failed), or the proc root hides processes
// from this caller (HidePID, when not root or without CAP_SYS_PTRACE). A
// process that exited while being read (Vanished) does not count: it uses
// nothing any more.
//
// A scan in a child PID namespace (a container) is blind too: processes
// outside it, which may share the store, are not listed at all.
func (r *Result) Blind() bool {
	return r.Denied > 0 || r.Failed > 0 || r.hiding() || r.ChildPIDNamespace || r.Partial != ""
}

// deniedOne notes a Denied process, named in deniedExample when its PID
// is the lowest so far.
func (r *Result) deniedOne(pid int, comm string) {
	if r.deniedExample != "" && pid > r.deniedPID {
		return
	}
	r.deniedPID, r.deniedExample = pid, fmt.Sprintf("process %d", pid)
	if comm != "" {
		r.deniedExample += " (" + printable(comm) + ")"
	}
}

// notice is the one sentence an operator needs from a blind scan: which
// processes could not be inspected, why, and then done, what hab-gc did
// about it ("" when the scan saw everything).
func (r *Result) notice(done string) string {
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
		s = "processes may be missing from the " + fmt.Sprint(r.Processes) + " listed (" + r.whyBlind() + ")"
	}
	return s + ": " + done
}

// hiding reports whether hidepid may keep processes out of the listing.
func (r *Result) hiding() bool {
	return r.HidePID != "" && (r.NotRoot || r.NoPtrace)
}

// whyBlind names the causes of Blind, e.g. "no CAP_SYS_PTRACE".
func (r *Result) whyBlind() string {
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

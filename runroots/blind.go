package runroots

import "strings"

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

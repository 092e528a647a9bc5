package pkgstore

import "time"

// IsNotice reports whether p is a notice, what a healthy, busy machine
// shows, rather than an error: a release of another package target
// (ProblemForeignTarget), or an install directory (ProblemInstallLeftover)
// modified less than inProgress before now, an install in progress. An
// install directory of unknown age is an error. hab-gc check fails on
// errors, and on notices only when strict.
func IsNotice(p Problem, now time.Time, inProgress time.Duration) bool {
	switch p.Kind {
	case ProblemForeignTarget:
		return true
	case ProblemInstallLeftover:
		return !p.Modified.IsZero() && now.Sub(p.Modified) < inProgress
	}
	return false
}

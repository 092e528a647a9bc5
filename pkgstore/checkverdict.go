package pkgstore

import "time"

// Checked is one problem of a check, labelled an error or a notice.
type Checked struct {
	Problem
	// Notice is set for what a healthy, busy machine shows (isNotice):
	// an install in progress, a release of another target.
	Notice bool `json:"notice"`
}

// CheckVerdict is a check's judgement of a Report: each problem labelled, the
// counts of each kind, and whether the check passes.
type CheckVerdict struct {
	// Problems are the report's, in its order, each labelled (never nil).
	Problems []Checked
	Errors   int
	Notices  int
	// OK is set when there is no error and, when strict, no notice.
	OK bool
}

// Judge labels each of the report's problems an error or a notice
// (isNotice at now, an install directory younger than inProgress being an
// install in progress) and passes the check when there is no error and,
// when strict, no notice either. `hab-gc check` (--strict) and the
// scheduled check job judge a store this way.
func (r *Report) Judge(now time.Time, inProgress time.Duration, strict bool) CheckVerdict {
	v := CheckVerdict{Problems: make([]Checked, 0, len(r.Problems))}
	for _, p := range r.Problems {
		n := isNotice(p, now, inProgress)
		v.Problems = append(v.Problems, Checked{p, n})
		if n {
			v.Notices++
		} else {
			v.Errors++
		}
	}
	v.OK = v.Errors == 0 && (!strict || v.Notices == 0)
	return v
}

// isNotice reports whether p is a notice, what a healthy, busy machine
// shows, rather than an error: a release of another package target
// (ProblemForeignTarget), or an install directory (ProblemInstallLeftover)
// modified less than inProgress before now, an install in progress. An
// install directory of unknown age is an error. hab-gc check fails on
// errors, and on notices only when strict.
func isNotice(p Problem, now time.Time, inProgress time.Duration) bool {
	switch p.Kind {
	case ProblemForeignTarget:
		return true
	case ProblemInstallLeftover:
		return !p.Modified.IsZero() && now.Sub(p.Modified) < inProgress
	}
	return false
}

// Package inuse holds what a retention.RootFinder reports, below both
// retention and its default finder (runroots), which retention imports.
package inuse

import (
	"context"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// Code is the stable, machine-readable part of a retention.Reason.
type Code string

// CodeInUse: a running process uses the release (a RootFinder's root).
const CodeInUse Code = "in-use"

// Root is a release kept for a reason that the store's files do not show:
// a process using it, a Supervisor running it, a lease on it.
type Root struct {
	// Ident is the release, fully qualified; a release that is not
	// installed (for example one Apply has just hidden) may be named: Apply
	// then puts it back. A partial ident (ORIGIN/NAME or
	// ORIGIN/NAME/VERSION) keeps every installed or hidden release
	// satisfying it, as a lease's does. One without an origin and a name
	// fails the plan and Apply with ErrRootsUnknown.
	Ident pkgstore.Ident `json:"ident"`
	Code  Code           `json:"code"`
	Text  string         `json:"text"`
}

// Found is what one retention.RootFinder found.
type Found struct {
	// Source names the finder ("processes", "supervisor").
	Source string `json:"source"`
	Roots  []Root `json:"roots"`
	// Summary says what was looked at, in one sentence, for reports.
	Summary string `json:"summary"`
	// Notice, when set, is the one sentence the operator needs: what could
	// not be seen and what was done about it (Summary is the detail).
	Notice string `json:"notice,omitempty"`
	// Counts are the numbers behind Summary (for example "inspected",
	// "not_inspected"), for machine-readable reports.
	Counts map[string]int `json:"counts,omitempty"`
	// Installs are installs in progress the finder sees and the store's
	// files may not (a process holding an archive of the artifact cache
	// open while Habitat verifies it: pkgstore.HeldArchive). The plan and
	// Apply treat them as the inventory's Installing: what each needs is
	// kept, and while one is Active every removal waits.
	Installs []pkgstore.Installing `json:"installs,omitempty"`
	// Probe, when set, says that the finder could not see everything (for
	// example processes /proc does not show fully) and can check the
	// releases about to go another way. PlanStore calls it with every
	// release its plan would remove, after the roots above are applied
	// (PlanToApply does not); Apply calls it under the lock with every
	// release the plan removes that the store still lists and every hidden
	// one an interrupted run left, and again after hiding with the hidden
	// releases. The roots it
	// returns are added to Roots, its counts to Counts. Its error (it
	// cannot vouch for them) fails the plan, or refuses the Apply before
	// it changes anything, with ErrRootsUnknown.
	Probe func(ctx context.Context, dirs []ProbeDir) (Probed, error) `json:"-"`
}

// ProbeDir is a release directory that a Found's Probe is asked about.
type ProbeDir struct {
	Ident pkgstore.Ident
	// Path is the directory relative to the store: the name Apply hid it
	// under in its VERSION directory, or empty for the release's own
	// directory, ORIGIN/NAME/VERSION/RELEASE. Dir gives it either way.
	Path string
}

// Dir is the directory relative to the store: Path, or Ident's
// ORIGIN/NAME/VERSION/RELEASE when Path is empty (made when asked for, so
// that a plan of 100,000 removals does not hold a path for each).
func (d ProbeDir) Dir() string {
	if d.Path != "" {
		return d.Path
	}
	return d.Ident.String()
}

// Probed is what a Probe found.
type Probed struct {
	Roots []Root
	// Installs are installs in progress the probe found (added to the
	// Found's Installs).
	Installs []pkgstore.Installing
	Counts   map[string]int
	// Summary and Notice, when set, replace the Found's.
	Summary, Notice string
}

// HiddenRelease returns the release a directory named name (in a VERSION
// directory) holds when it is one Apply hid a release under
// (pkgstore.DebrisPrefix + "pending-RELEASE-..." or "doomed-RELEASE-..."),
// so that a RootFinder that meets a path inside it can name the release.
func HiddenRelease(name string) (release string, ok bool) {
	_, release, ok = pkgstore.ParseDebris(name)
	if !ok || release == "x" {
		return "", false
	}
	return release, true
}

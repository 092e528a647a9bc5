package retention

import (
	"context"
	"path"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// PlanStore scans an open store, asks the policy's RootFinders (and their
// probes) what is in use, and plans, with uninstall hooks checked on disk.
// now is the plan's clock (Plan.Now; scan.Now when that is zero). Unless
// scan.Sizes, only the releases to remove are measured. At most one scan
// option; its OnPhase and Logger see PhaseScan then PhasePlan.
//
// The store is given to Apply again rather than kept in the Plan: a plan
// is data, and there is no one-call plan-and-apply, so a caller can show
// or check its plan first.
func PlanStore(ctx context.Context, store *pkgstore.Store, pol Policy, now time.Time, opts ...pkgstore.Options) (*Plan, error) {
	return planStore(ctx, store, pol, now, opts, false)
}

// PlanToApply is PlanStore for a plan applied straight away: the finders'
// probes are left to Apply, which runs them under the lock anyway, so they
// run once. A release a probe finds in use is then among the plan's
// removals and Apply keeps it (StatusKept); the Report names Apply's
// findings (Result.Found). A caller that shows the plan first or decides
// from it wants PlanStore.
func PlanToApply(ctx context.Context, store *pkgstore.Store, pol Policy, now time.Time, opts ...pkgstore.Options) (*Plan, error) {
	return planStore(ctx, store, pol, now, opts, true)
}

// ProbesLeftToApply reports whether the plan came from PlanToApply.
func (p *Plan) ProbesLeftToApply() bool { return p != nil && p.probeLater }

func planStore(ctx context.Context, store *pkgstore.Store, pol Policy, now time.Time, opts []pkgstore.Options, probeLater bool) (*Plan, error) {
	if ctx == nil {
		return nil, ErrNilContext
	}
	if err := store.Usable(); err != nil {
		return nil, err
	}
	if err := pol.Validate(); err != nil {
		return nil, err
	}
	scan, err := oneOption(opts)
	if err != nil {
		return nil, err
	}
	if scan.Now.IsZero() {
		scan.Now = now
	}
	measureLater := !scan.Sizes
	if measureLater && scan.MeasureBeyond == 0 {
		// Measured while the scan has them open; the other removals after.
		scan.MeasureBeyond = pol.keep()
	}
	scan.Hidden = true // planned as if installed
	inv, err := store.Scan(ctx, scan)
	if err != nil {
		return nil, err
	}
	pkgstore.ReportPhase(scan.OnPhase, scan.Logger, PhaseEvent{Phase: PhasePlan})
	found, err := pol.FindRoots(ctx, inv)
	if err != nil {
		return nil, err
	}
	var p *Plan
	if probeLater {
		p, err = computeAt(inv, nil, pol, now, time.Now(), uninstallHooks(store, inv), found)
		if p != nil {
			p.probeLater = true
		}
	} else {
		p, err = planProbedGraph(ctx, inv, nil, pol, now, time.Now(), uninstallHooks(store, inv), found)
	}
	if err != nil {
		return nil, err
	}
	if measureLater {
		var remove []*pkgstore.Release
		for _, d := range p.Decisions {
			switch {
			case d.Action != Remove:
				d.Release.Size = -1
			case d.Release.Size < 0:
				remove = append(remove, d.Release)
			}
		}
		if err := store.MeasureSizes(ctx, remove, scan.Workers); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Report is the stable JSON shape of a plan and, after a real run, of what
// was done (hab-gc run --json). Fields are only ever added; slices other
// than the omitempty ones are never null.
type Report struct {
	DryRun      bool               `json:"dry_run"`
	FSRoot      string             `json:"fs_root"`
	Target      string             `json:"target"`
	Releases    []ReportRelease    `json:"releases"`
	Summary     ReportSummary      `json:"summary"`
	Problems    []pkgstore.Problem `json:"problems"`
	Warnings    []Warning          `json:"warnings"`
	Pins        []Pin              `json:"pins"`
	RootSources []Found            `json:"root_sources"`
	Leftovers   []Leftover         `json:"leftovers,omitempty"`
	InstallDirs []InstallDir       `json:"install_dirs,omitempty"`
}

// ReportRelease is one installed release in a Report.
type ReportRelease struct {
	Ident       string         `json:"ident"`
	Action      Action         `json:"action"`
	Reasons     []Reason       `json:"reasons"`
	Size        *int64         `json:"size"` // null when not measured
	InstalledBy string         `json:"installed_by"`
	Outcome     *ReportOutcome `json:"outcome,omitempty"` // a real run's removals
}

// ReportOutcome is what a real run did with a release the plan removes.
type ReportOutcome struct {
	Status     RemovalStatus `json:"status"`
	Reasons    []Reason      `json:"reasons,omitempty"`
	Error      string        `json:"error,omitempty"`
	BytesFreed int64         `json:"bytes_freed"`
}

// ReportSummary counts a Report.
type ReportSummary struct {
	Releases         int   `json:"releases"`
	Keep             int   `json:"keep"`
	Remove           int   `json:"remove"`
	BytesReclaimable int64 `json:"bytes_reclaimable"` // -1: not measured
	// The rest are filled by a real run (Result's counts).
	Removed      int   `json:"removed"`
	KeptAtRun    int   `json:"kept_at_revalidation"`
	Failed       int   `json:"failed"`
	BytesFreed   int64 `json:"bytes_freed"`
	NotAttempted int   `json:"not_attempted"`
	Gone         int   `json:"already_gone"`
	// KeptTooYoung counts releases kept only by MinAge: what a shorter
	// minimum age would let go.
	KeptTooYoung int `json:"kept_too_young"`
	// InstallWait is Plan.InstallWait, or Result.InstallWait.
	InstallWait        string  `json:"install_wait,omitempty"`
	PacedSeconds       float64 `json:"paced_seconds"`
	InstallDirsRemove  int     `json:"install_dirs_remove"`
	InstallDirsRemoved int     `json:"install_dirs_removed"`
}

// Report describes the plan and, when res is non-nil, what Apply did.
func (p *Plan) Report(res *Result) Report {
	rep, rels := p.ReportStream(res)
	rep.Releases = make([]ReportRelease, rels.Len())
	for i := range rep.Releases {
		rep.Releases[i] = rels.At(i)
	}
	return rep
}

// ReportStream is Report with its Releases given one at a time, for a
// caller that writes a large report as it goes.
func (p *Plan) ReportStream(res *Result) (Report, ReportReleases) {
	found := p.Found
	if p.probeLater && res != nil && res.Found != nil {
		found = res.Found
	}
	rep := Report{
		DryRun: res == nil, FSRoot: p.Inventory.FSRoot, Target: p.Inventory.Target,
		Problems: nonNil(p.Inventory.Problems), Warnings: nonNil(p.Warnings), Pins: nonNil(p.Pins), RootSources: nonNil(found),
	}
	rels := ReportReleases{plan: p}
	if res != nil {
		rels.outcomes = make(map[pkgstore.Ident]RemovalOutcome, len(res.Outcomes))
		for _, o := range res.Outcomes {
			rels.outcomes[o.Ident] = o
		}
		rep.Summary.Removed, rep.Summary.KeptAtRun, rep.Summary.Failed, rep.Summary.BytesFreed = res.Removed, res.Kept, res.Failed, res.BytesFreed
		rep.Leftovers = res.Leftovers
		for _, l := range res.Leftovers {
			if l.Status == StatusRemoved && !strings.HasPrefix(path.Base(l.Path), pkgstore.DebrisPrefix) {
				rep.Summary.InstallDirsRemoved++
			}
		}
		rep.Summary.NotAttempted, rep.Summary.Gone = res.NotAttempted, res.Gone
		rep.Summary.PacedSeconds = res.Paced.Seconds()
	}
	for _, d := range p.Decisions {
		if d.Action == Keep {
			rep.Summary.Keep++
			if onlyYoung(d.Reasons) {
				rep.Summary.KeptTooYoung++
			}
		} else {
			rep.Summary.Remove++
		}
	}
	rep.Summary.Releases = len(p.Inventory.Releases)
	rep.InstallDirs = p.InstallDirs
	for _, d := range p.InstallDirs {
		if d.Remove {
			rep.Summary.InstallDirsRemove++
		}
	}
	rep.Summary.InstallWait = p.InstallWait
	if rep.Summary.InstallWait == "" && res != nil {
		rep.Summary.InstallWait = res.InstallWait // found by Apply
	}
	rep.Summary.BytesReclaimable = p.reclaimableBytes()
	return rep, rels
}

// ReportReleases make a report's releases one at a time; safe for
// concurrent use.
type ReportReleases struct {
	plan     *Plan
	outcomes map[pkgstore.Ident]RemovalOutcome
}

func (rr ReportReleases) Len() int {
	if rr.plan == nil {
		return 0
	}
	return len(rr.plan.Decisions)
}

// At is Report's Releases[i].
func (rr ReportReleases) At(i int) ReportRelease {
	d := rr.plan.Decisions[i]
	out := ReportRelease{Ident: d.Release.Ident.String(), Action: d.Action, Reasons: d.Reasons,
		InstalledBy: rr.plan.Inventory.InstalledBy(d.Release)}
	if d.Release.Size >= 0 {
		out.Size = &d.Release.Size // no allocation a release
	}
	if o, ok := rr.outcomes[d.Release.Ident]; ok {
		out.Outcome = &ReportOutcome{Status: o.Status, Reasons: o.Reasons, Error: o.ErrorText(), BytesFreed: o.Bytes}
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func onlyYoung(rs []Reason) bool {
	for _, r := range rs {
		if r.Code != CodeYoung {
			return false
		}
	}
	return len(rs) > 0
}

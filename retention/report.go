package retention

import (
	"context"
	"path"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// PlanStore scans an open store, asks the policy's RootFinders what is in
// use, and computes a plan for it, with uninstall hooks checked on disk. When the scan options do not ask for sizes, only
// the releases to remove are measured, so that the plan can say how much
// it reclaims without walking the whole store: those beyond the newest
// KeepLatest of their package while the scan reads them
// (Options.MeasureBeyond), the others afterwards.
//
// now is the caller's clock reading, used for MinAge, for the ages the
// scan reports (scan.Now, when zero) and by Apply when it revalidates the
// plan. A policy that sets nothing is refused before any scan
// (ErrEmptyPolicy).
//
// The scan options are optional: at most one pkgstore.Options, none for
// the defaults (the machine's target, every release measured only when
// it is to be removed). scan.OnPhase and scan.Logger see the scan
// (PhaseScan) and then the planning (PhasePlan), as ApplyOptions' see
// Apply's phases.
//
// # Call sites
//
// The common case is two calls, with the clock explicit and every option
// left out:
//
//	plan, err := retention.PlanStore(ctx, store, policy, time.Now())
//	res, err := plan.Apply(ctx, store)
//
// Options are trailing and optional (scan ...pkgstore.Options, opts
// ...ApplyOptions: at most one, the zero value when absent), so a caller
// names only what it changes and no call site writes an empty struct.
// The clock stays an argument, never a default: it is the plan's
// (Plan.Now), MinAge is measured with it and Apply revalidates with it,
// and a scheduler or test passes its own. PlanStore reads the real clock
// too (Plan.RealNow): a release young by either is kept, and a now more
// than ClockAheadWarning ahead of the real clock is warned about
// (WarnClockAhead). The store is given to Apply
// again, rather than kept in the Plan, because a plan is data (Compute
// makes one from an Inventory alone; it can be reported and applied
// later) while Apply acts on an open store under its lock, and refuses
// any store but the plan's (ErrOtherStore). There is no one-call
// plan-and-apply: a purge that cannot show its plan first (to log it, or
// stop on a warning) would be the easy, and worse, path.
func PlanStore(ctx context.Context, store *pkgstore.Store, pol Policy, now time.Time, opts ...pkgstore.Options) (*Plan, error) {
	return planStore(ctx, store, pol, now, opts, planHow{})
}

// PlanToApply is PlanStore for a plan that is applied straight away (a
// real run), leaving to Apply the checks it makes again under the lock:
// a RootFinder's Probe (write leases on the files of every release to
// remove, where /proc does not show every process fully) is not called
// here. Apply calls it once under the lock, on every release the plan
// removes, where what it finds decides, and again after hiding them;
// PlanStore's plan is probed a third time, to show what it will keep. A
// release the probe finds in use is then among the plan's removals, and
// Apply keeps it, and what it needs (StatusKept, with the probe's
// reason); the plan's Found hold what the finders found without their
// probes (Found.Probe still set), and its Report with Apply's Result
// names what Apply's probe found (Result.Found). A probe that cannot
// check the files refuses the Apply (ErrRootsUnknown), under the lock,
// before anything is changed. A caller that shows or journals the plan
// before applying it, or decides from it (how much to remove under disk
// pressure, which archives of the artifact cache go), wants PlanStore.
func PlanToApply(ctx context.Context, store *pkgstore.Store, pol Policy, now time.Time, opts ...pkgstore.Options) (*Plan, error) {
	return planStore(ctx, store, pol, now, opts, planHow{probeLater: true})
}

// ProbesLeftToApply reports whether the plan left its root finders'
// probes to Apply (PlanToApply): its Found then say what the finders saw
// without them, and Apply's Result.Found what their probes found.
func (p *Plan) ProbesLeftToApply() bool { return p != nil && p.probeLater }

// planHow says how planStore makes a plan: probeLater, the finders'
// probes left to Apply (PlanToApply).
type planHow struct {
	probeLater bool
}

// planStore is PlanStore, made as how says.
func planStore(ctx context.Context, store *pkgstore.Store, pol Policy, now time.Time, opts []pkgstore.Options, how planHow) (*Plan, error) {
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
		// The releases beyond the newest KeepLatest are measured
		// while the scan has them open (the cheapest time); the rest of
		// those to remove afterwards.
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
	// The real clock too: a release young by it is kept whatever now says
	// (Plan.RealNow).
	var p *Plan
	if how.probeLater {
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
		// Only the releases to remove are reported measured.
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
// was done (hab-gc run --json). Fields are only ever added.
type Report struct {
	DryRun   bool               `json:"dry_run"`
	FSRoot   string             `json:"fs_root"`
	Target   string             `json:"target"`
	Releases []ReportRelease    `json:"releases"`
	Summary  ReportSummary      `json:"summary"`
	Problems []pkgstore.Problem `json:"problems"`
	// Warnings about the policy (see Plan.Warnings); never null.
	Warnings []Warning `json:"warnings"`
	// Pins are the policy's excludes, from every source, each with where
	// it came from and how many releases it matches (Plan.Pins); never
	// null.
	Pins []Pin `json:"pins"`
	// RootSources are what the policy's RootFinders looked at and found
	// when the plan was made (runtime roots, the Supervisor).
	RootSources []Found `json:"root_sources"`
	// Leftovers are what a real run did with the hidden directories an
	// interrupted run left (only when there were some).
	Leftovers []Leftover `json:"leftovers,omitempty"`
	// InstallDirs are the store's install directories and what a run
	// does with each (only when there are some).
	InstallDirs []InstallDir `json:"install_dirs,omitempty"`
}

// ReportRelease is one installed release in a Report.
type ReportRelease struct {
	Ident   string   `json:"ident"`
	Action  Action   `json:"action"`
	Reasons []Reason `json:"reasons"`
	// Size is the bytes on disk, when measured (null otherwise).
	Size *int64 `json:"size"`
	// InstalledBy names the program that installed it
	// (pkgstore.Inventory.InstalledBy).
	InstalledBy string `json:"installed_by"`
	// Outcome is set for releases a real run tried to remove.
	Outcome *ReportOutcome `json:"outcome,omitempty"`
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
	Releases int `json:"releases"`
	Keep     int `json:"keep"`
	Remove   int `json:"remove"`
	// BytesReclaimable is what the removals occupy; -1 when not measured.
	BytesReclaimable int64 `json:"bytes_reclaimable"`
	// The rest are filled by a real run.
	Removed    int   `json:"removed"`
	KeptAtRun  int   `json:"kept_at_revalidation"`
	Failed     int   `json:"failed"`
	BytesFreed int64 `json:"bytes_freed"`
	// NotAttempted counts removals a stopped run never reached.
	NotAttempted int `json:"not_attempted"`
	// Gone counts removals that were no longer installed when the run
	// reached them (StatusGone): neither kept nor removed by it.
	Gone int `json:"already_gone"`
	// KeptTooYoung counts releases kept only because they were installed
	// less than Policy.MinAge ago (every reason CodeYoung): what a shorter
	// minimum age would let go. A fresh image or restored backup makes
	// every release look just installed.
	KeptTooYoung int `json:"kept_too_young"`
	// InstallWait is Plan.InstallWait, or Result.InstallWait when Apply
	// found the install: why every removal waits for an install in
	// progress (empty when none does).
	InstallWait string `json:"install_wait,omitempty"`
	// PacedSeconds is Result.Paced: how long a paced run held its
	// deletions back.
	PacedSeconds float64 `json:"paced_seconds"`
	// InstallDirsRemove counts the install directories the plan removes
	// (killed installs' leftovers); InstallDirsRemoved those a real run
	// removed.
	InstallDirsRemove  int `json:"install_dirs_remove"`
	InstallDirsRemoved int `json:"install_dirs_removed"`
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

// ReportStream is Report without its Releases (nil), and what gives them
// one at a time: for a caller that writes a large report as it goes (hab-gc
// run --json at 100,000 releases) and need not hold every ReportRelease at
// once. Everything else, the summary included, is as Report has it.
func (p *Plan) ReportStream(res *Result) (Report, ReportReleases) {
	rep := Report{
		DryRun: res == nil, FSRoot: p.Inventory.FSRoot, Target: p.Inventory.Target,
		Problems: p.Inventory.Problems,
	}
	if rep.Problems == nil {
		rep.Problems = []pkgstore.Problem{}
	}
	rep.Warnings = p.Warnings
	if rep.Warnings == nil {
		rep.Warnings = []Warning{}
	}
	rep.Pins = p.Pins
	if rep.Pins == nil {
		rep.Pins = []Pin{}
	}
	rep.RootSources = p.Found
	if p.probeLater && res != nil && res.Found != nil {
		// The probes were Apply's (PlanToApply): what it found.
		rep.RootSources = res.Found
	}
	if rep.RootSources == nil {
		rep.RootSources = []Found{}
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
	rep.Summary.BytesReclaimable = p.ReclaimableBytes()
	return rep, rels
}

// ReportReleases are a report's releases, made one at a time (see
// Plan.ReportStream): At(i) is what Report's Releases[i] would be. Safe
// for concurrent use.
type ReportReleases struct {
	plan     *Plan
	outcomes map[pkgstore.Ident]RemovalOutcome
}

// Len is how many releases the report has: one a decision.
func (rr ReportReleases) Len() int {
	if rr.plan == nil {
		return 0
	}
	return len(rr.plan.Decisions)
}

// At is the report of the i-th decision, in plan order.
func (rr ReportReleases) At(i int) ReportRelease {
	d := rr.plan.Decisions[i]
	out := ReportRelease{Ident: d.Release.Ident.String(), Action: d.Action, Reasons: d.Reasons,
		InstalledBy: rr.plan.Inventory.InstalledBy(d.Release)}
	if d.Release.Size >= 0 {
		out.Size = &d.Release.Size // the release's own: no allocation a release
	}
	if o, ok := rr.outcomes[d.Release.Ident]; ok {
		out.Outcome = &ReportOutcome{Status: o.Status, Reasons: o.Reasons, Error: o.ErrorText(), BytesFreed: o.Bytes}
	}
	return out
}

// onlyYoung reports whether every reason is CodeYoung.
func onlyYoung(rs []Reason) bool {
	for _, r := range rs {
		if r.Code != CodeYoung {
			return false
		}
	}
	return len(rs) > 0
}

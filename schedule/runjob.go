package schedule

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/prune"
	"github.com/hab-gc/hab-gc/retention"
)

// Setup returns the retention policy and scan options a job uses on one
// FS root, as `hab-gc run --fs-root ROOT` with the job's parameters would.
type Setup func(fsRoot string, j Job) (retention.Policy, pkgstore.Options, error)

func defaultSetup(fsRoot string, j Job) (retention.Policy, pkgstore.Options, error) {
	if j.Type != Prune && j.Type != Pressure {
		return retention.Policy{}, pkgstore.Options{}, nil
	}
	pol, err := j.Params.Policy()
	for i := range pol.Excludes {
		pol.Excludes[i].Source = j.PinSource()
	}
	return pol, pkgstore.Options{}, err
}

func defaultRun(ctx context.Context, j Job, store *pkgstore.Store, now time.Time) (RunResult, error) {
	return RunJob(ctx, j, store, now, defaultSetup)
}

// RunJob runs a check or a prune while the caller holds the store's lock.
// The plan judges ages by now, the scheduler's clock; Apply's last check
// judges installs in progress by the real clock. A prune removes a release
// only when the plan of every FS root in j.FSRoots removes it.
func RunJob(ctx context.Context, j Job, store *pkgstore.Store, now time.Time, setup Setup) (RunResult, error) {
	pol, opts, err := setup(store.FSRoot(), j)
	if err != nil {
		return RunResult{}, err
	}
	opts.Now = now
	switch j.Type {
	case Check:
		return runCheck(ctx, store, opts)
	case Prune, Pressure:
		return runPrune(ctx, j, store, now, setup, pol, opts)
	}
	return RunResult{}, errors.New("unknown job type " + string(j.Type))
}

// runCheck judges the store as `hab-gc check` does: it fails on errors,
// not on the notices a healthy, busy machine shows. Problems counts both.
func runCheck(ctx context.Context, store *pkgstore.Store, opts pkgstore.Options) (RunResult, error) {
	rep, err := store.Verify(ctx, opts)
	if err != nil {
		return RunResult{}, err
	}
	v := rep.Judge(opts.Now, retention.DefaultMinAge, false)
	return RunResult{OK: v.OK, Problems: len(rep.Problems), ProblemList: rep.Problems}, nil
}

// runPrune runs prune.Run with what the other FS roots sharing the store
// keep pinned. Every prune past its setup is in the store's history, a
// refused one too.
func runPrune(ctx context.Context, j Job, store *pkgstore.Store, now time.Time, setup Setup, pol retention.Policy, opts pkgstore.Options) (RunResult, error) {
	self, _ := canonicalPath(store.FSRoot())
	for _, root := range j.FSRoots {
		if c, _ := canonicalPath(root); c == self {
			continue
		}
		pins, err := keptAt(ctx, root, j, now, setup)
		if err != nil {
			err = fmt.Errorf("FS root %s shares the store, and its plan could not be made, so nothing is removed: %w", root, err)
			res := RunResult{}
			run := history.Run{ID: history.RunID(string(j.Type), now), Job: string(j.Type), JobKey: j.Key, Owner: j.Owner, FSRoot: store.FSRoot(), Policy: pol}
			if herr := history.LogContext(ctx, now, run, nil, nil, err); herr != nil {
				res.HistoryError = herr.Error()
			}
			return res, err
		}
		pol.Excludes = append(pol.Excludes, pins...)
	}
	env := applyFrom(ctx)
	po := prune.Options{Policy: pol, Scan: opts, Locked: true, Pace: env.pace, Now: now,
		Job: string(j.Type), JobKey: j.Key, Owner: j.Owner,
		Logger: env.log, OnPhase: env.onPhase}
	if j.Type == Pressure {
		po.Limits = j.Limits
	}
	out, err := prune.Run(ctx, store, po)
	return resultOf(out, err, po.Limits)
}

// resultOf is the state's record of a prune's run, and its error: the
// run's, or the failed removals'.
func resultOf(out *prune.Outcome, err error, limits *pressure.Limits) (RunResult, error) {
	res := RunResult{}
	if out.HistoryErr != nil {
		res.HistoryError = out.HistoryErr.Error()
	}
	if out.Verdict != nil {
		res.FreeBefore, res.Notice = out.Verdict.FreeBefore, out.Verdict.Text(*limits)
	}
	if out.FreeAfter >= 0 {
		res.FreeAfter = out.FreeAfter
	}
	var de *retention.DamagedError
	if errors.As(err, &de) {
		res.Problems, res.ProblemList = len(de.Problems), de.Problems
	}
	if out.Plan != nil {
		rep := out.Plan.Report(out.Result)
		res.Plan, res.ProblemList = &rep, rep.Problems
	}
	if ar := out.Result; ar != nil {
		res.Removed, res.BytesFreed, res.PacedSeconds = ar.Removed, ar.BytesFreed, ar.Paced.Seconds()
		res.OK = !ar.Partial()
		if ar.Partial() && err == nil {
			err = partialError(ar)
		}
	}
	if err != nil {
		res.OK = false
	}
	return res, err
}

// keptAt returns an exclude pinning each release the job's plan at
// another FS root sharing the store keeps.
func keptAt(ctx context.Context, root string, j Job, now time.Time, setup Setup) ([]retention.Exclude, error) {
	pol, opts, err := setup(root, j)
	if err != nil {
		return nil, err
	}
	opts.Now = now
	st, err := pkgstore.Open(root)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	plan, err := retention.PlanStore(ctx, st, pol, now, opts)
	if err != nil {
		return nil, err
	}
	var pins []retention.Exclude
	for _, d := range plan.Keeps() {
		pins = append(pins, retention.Exclude{Pattern: d.Release.Ident,
			Raw:    fmt.Sprintf("%s, kept by the plan for FS root %s, which shares this store", d.Release.Ident, root),
			Source: "the plan for FS root " + root})
	}
	return pins, nil
}

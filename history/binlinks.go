package history

import (
	"context"
	"time"

	"github.com/hab-gc/hab-gc/binlink"
)

// binlinkRecords are a binlinks run's records, the run's last; res may be nil.
func binlinkRecords(now time.Time, run Run, res *binlink.Result, applyErr error) []Record {
	base := Record{Time: now.UTC(), RunID: run.ID, Job: run.Job, JobKey: run.JobKey, Owner: run.Owner, FSRoot: run.FSRoot}
	var out []Record
	total := base
	total.Kind, total.Outcome = KindRun, RunOK
	if res != nil {
		for _, o := range res.Outcomes {
			if o.Status == binlink.StatusKept {
				continue
			}
			r := base
			r.Kind, r.Outcome, r.Link, r.Target, r.Why, r.Error = KindBinlink, string(o.Status), o.Link, o.Target, o.Reason, o.Error
			if o.Release.Release != "" {
				r.Ident = o.Release.String()
			}
			if o.Action == binlink.ActionRelink {
				r.NewTarget, r.NewIdent = o.NewTarget, o.NewRelease.String()
			}
			out = append(out, r)
		}
		total.Relinked, total.Removed, total.Kept, total.Failed = res.Relinked, res.Removed, res.Kept, res.Failed
		if res.Partial() {
			total.Outcome = RunPartial
		}
	}
	total.endedBy(applyErr)
	return append(out, total)
}

// LogBinlinks is LogContext of a binlinks run.
func LogBinlinks(ctx context.Context, now time.Time, run Run, res *binlink.Result, applyErr error) error {
	if run.ID == "" {
		return ErrNoRunID
	}
	j, err := ForFSRoot(run.FSRoot)
	if err != nil {
		return err
	}
	return j.AppendContext(ctx, binlinkRecords(now, run, res, applyErr))
}

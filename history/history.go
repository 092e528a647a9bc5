package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// Kind says what a record is about.
type Kind string

const (
	// KindRun is the record of one run: its totals and its outcome.
	KindRun Kind = "run"
	// KindRelease is the record of one release a run removed or failed to
	// remove.
	KindRelease Kind = "release"
	// KindBinlink is the record of one binlink a binlinks run relinked,
	// removed or failed to (BinlinkRecords).
	KindBinlink Kind = "binlink"
	// KindLeftover is the record of one directory a run deleted or failed
	// to outside a release: a killed install's leftover, or what an
	// interrupted run left (Path names it).
	KindLeftover Kind = "leftover"
)

// Outcomes of a run record (a release record's outcome is its
// retention.RemovalStatus: removed or failed).
const (
	RunOK      = "ok"      // every planned removal was done or kept at revalidation
	RunPartial = "partial" // some removals failed; the others were done
	RunFailed  = "failed"  // the run stopped with an error
	// RunInterrupted: the run was stopped (its context cancelled: SIGINT,
	// SIGTERM); Apply put back what it had hidden and not yet deleted.
	RunInterrupted = "interrupted"
)

// Job names what ran.
const (
	// JobRun is hab-gc run; a scheduled job records its type ("prune",
	// "pressure").
	JobRun = "run"
	// JobBinlinks is the repair of dangling binlinks (hab-gc binlinks).
	JobBinlinks = "binlinks"
)

// Policy is the retention policy of a run, as it was given.
type Policy struct {
	KeepLatest     int      `json:"keep_latest"`
	SelfKeepLatest int      `json:"self_keep_latest,omitempty"`
	Exclude        []string `json:"exclude,omitempty"`
	// Pins are the excludes with where each came from (a flag, the
	// environment, a config file, a schedule), in Exclude's order.
	Pins                 []Pin    `json:"pins,omitempty"`
	Only                 []string `json:"only,omitempty"`
	KeepLatestFor        []string `json:"keep_latest_for,omitempty"`
	ServicesOnly         bool     `json:"services_only,omitempty"`
	NoDeps               bool     `json:"no_deps,omitempty"`
	MinAge               string   `json:"min_age"`
	AllowDamaged         bool     `json:"allow_damaged,omitempty"`
	IgnoreUninstallHooks bool     `json:"ignore_uninstall_hooks,omitempty"`
}

// Pin is one exclude of a run's policy and its source
// (retention.Exclude.Source; empty when unknown).
type Pin struct {
	Pin    string `json:"pin"`
	Source string `json:"source,omitempty"`
}

// policyOf describes a retention policy.
func policyOf(p retention.Policy) Policy {
	out := Policy{KeepLatest: max(p.KeepLatest, 0), SelfKeepLatest: p.SelfKeepLatest,
		AllowDamaged: p.AllowDamaged, IgnoreUninstallHooks: p.IgnoreUninstallHooks,
		ServicesOnly: p.ServicesOnly, NoDeps: p.NoDeps}
	for _, c := range p.KeepLatestFor {
		out.KeepLatestFor = append(out.KeepLatestFor, c.String())
	}
	switch p.MinAge {
	case 0:
		out.MinAge = retention.DefaultMinAge.String()
	case retention.NoMinAge:
		out.MinAge = "none"
	default:
		out.MinAge = p.MinAge.String()
	}
	for _, e := range p.Excludes {
		out.Exclude = append(out.Exclude, e.Raw)
		out.Pins = append(out.Pins, Pin{Pin: e.Raw, Source: e.Source})
	}
	for _, o := range p.Only {
		out.Only = append(out.Only, o.String())
	}
	return out
}

// String is the policy as flags would say it.
func (p Policy) String() string {
	parts := []string{fmt.Sprintf("keep_latest=%d", p.KeepLatest)}
	if p.SelfKeepLatest > 0 {
		parts = append(parts, fmt.Sprintf("self_keep_latest=%d", p.SelfKeepLatest))
	}
	parts = append(parts, "min_age="+p.MinAge)
	for _, e := range p.Exclude {
		parts = append(parts, fmt.Sprintf("exclude=%q", e))
	}
	for _, o := range p.Only {
		parts = append(parts, "only="+o)
	}
	for _, c := range p.KeepLatestFor {
		parts = append(parts, "keep_latest_for="+c)
	}
	if p.ServicesOnly {
		parts = append(parts, "services_only")
	}
	if p.NoDeps {
		parts = append(parts, "no_deps")
	}
	if p.AllowDamaged {
		parts = append(parts, "allow_damaged")
	}
	if p.IgnoreUninstallHooks {
		parts = append(parts, "ignore_uninstall_hooks")
	}
	return strings.Join(parts, " ")
}

// Record is one line of the journal. Fields are only ever added.
type Record struct {
	Time time.Time `json:"time"`
	Kind Kind      `json:"kind"`
	// RunID ties a run's release records to its run record.
	RunID string `json:"run_id"`
	// Job is JobRun or a scheduled job's type; JobKey and Owner name a scheduled job.
	Job    string `json:"job"`
	JobKey string `json:"job_key,omitempty"`
	Owner  string `json:"owner,omitempty"`
	FSRoot string `json:"fs_root"`
	// Policy is the retention policy (none for a binlinks run).
	Policy Policy `json:"policy,omitzero"`
	// Ident is the release (release records); for a binlink record, the
	// release the link pointed into.
	Ident string `json:"ident,omitempty"`
	// Outcome is removed or failed (release records), relinked, removed or
	// failed (binlink records), RunOK, RunPartial RunFailed or
	// RunInterrupted (run records).
	Outcome string `json:"outcome"`
	// Link (FS-root-relative), Target, NewTarget and NewIdent: the binlink,
	// what it pointed to, and what a relink points it to (binlink records).
	Link      string `json:"link,omitempty"`
	Target    string `json:"target,omitempty"`
	NewTarget string `json:"new_target,omitempty"`
	NewIdent  string `json:"new_ident,omitempty"`
	// Path is the directory, relative to the store (leftover records).
	Path string `json:"path,omitempty"`
	// Why says why a binlink was relinked or removed (binlink records), or
	// what became of a leftover directory (leftover records).
	Why string `json:"why,omitempty"`
	// Relinked counts a binlinks run's relinks (run records).
	Relinked int `json:"relinked,omitempty"`
	// Reasons say why the plan removed the release, and InstalledBy
	// which program had installed it (release records).
	Reasons     []retention.Reason `json:"reasons,omitempty"`
	InstalledBy string             `json:"installed_by,omitempty"`
	Error       string             `json:"error,omitempty"`
	// BytesFreed is what the release, or the whole run, freed.
	BytesFreed int64 `json:"bytes_freed"`
	// Removed, Kept and Failed count the run's planned removals by
	// outcome (run records): Kept those kept at revalidation.
	Removed int `json:"removed,omitempty"`
	Kept    int `json:"kept,omitempty"`
	Failed  int `json:"failed,omitempty"`
	// Releases and Keep are the plan's count of releases and of those it
	// kept (run records; absent from records written before they were
	// added).
	Releases int `json:"releases,omitempty"`
	Keep     int `json:"keep,omitempty"`
}

// ErrBadRecord is wrapped by ParseRecord's errors.
var ErrBadRecord = errors.New("not a history record")

// parseRecord parses one journal line.
func parseRecord(line []byte) (Record, error) {
	var r Record
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return r, fmt.Errorf("%w: not a JSON object", ErrBadRecord)
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrBadRecord, err)
	}
	switch {
	case r.Time.IsZero():
		return Record{}, fmt.Errorf("%w: no time", ErrBadRecord)
	case r.Kind != KindRun && r.Kind != KindRelease && r.Kind != KindBinlink && r.Kind != KindLeftover:
		return Record{}, fmt.Errorf("%w: unknown kind %q", ErrBadRecord, r.Kind)
	case r.Kind == KindRelease && r.Ident == "":
		return Record{}, fmt.Errorf("%w: a release record without an ident", ErrBadRecord)
	case r.Kind == KindBinlink && r.Link == "":
		return Record{}, fmt.Errorf("%w: a binlink record without a link", ErrBadRecord)
	case r.Kind == KindLeftover && r.Path == "":
		return Record{}, fmt.Errorf("%w: a leftover record without a path", ErrBadRecord)
	}
	return r, nil
}

// Run describes a run for its records.
type Run struct {
	ID     string
	Job    string // JobRun, a scheduled job's type ("prune", "pressure"), or watch.Job
	JobKey string
	Owner  string
	FSRoot string
	Policy retention.Policy
}

// records are the journal records of one applied plan: one per release
// removed or failed, one per leftover directory deleted or failed, then
// the run's own. res may be nil when Apply
// failed before doing anything; applyErr is Apply's error.
func records(now time.Time, run Run, plan *retention.Plan, res *retention.Result, applyErr error) []Record {
	base := Record{Time: now.UTC(), RunID: run.ID, Job: run.Job, JobKey: run.JobKey, Owner: run.Owner,
		FSRoot: run.FSRoot, Policy: policyOf(run.Policy)}
	why := map[pkgstore.Ident][]retention.Reason{}
	by := map[pkgstore.Ident]string{}
	if plan != nil {
		for _, d := range plan.Removals() {
			why[d.Release.Ident] = d.Reasons
			by[d.Release.Ident] = plan.Inventory.InstalledBy(d.Release)
		}
	}
	var out []Record
	total := base
	total.Kind, total.Outcome = KindRun, RunOK
	if plan != nil {
		total.Releases = len(plan.Inventory.Releases) // a scoped plan decides some alone
		total.Keep = total.Releases - len(plan.Removals())
	}
	if res != nil {
		for _, o := range res.Outcomes {
			if o.Status != retention.StatusRemoved && o.Status != retention.StatusFailed {
				continue
			}
			r := base
			r.Kind, r.Ident, r.Outcome, r.Error, r.BytesFreed = KindRelease, o.Ident.String(), string(o.Status), o.ErrorText(), o.Bytes
			r.Reasons, r.InstalledBy = why[o.Ident], by[o.Ident]
			out = append(out, r)
		}
		for _, l := range res.Leftovers {
			if l.Status == retention.StatusRemoved || l.Status == retention.StatusFailed {
				r := base
				r.Kind, r.Path, r.Outcome, r.Why = KindLeftover, l.Path, string(l.Status), l.Text
				out = append(out, r)
			}
		}
		total.Removed, total.Kept, total.Failed, total.BytesFreed = res.Removed, res.Kept, res.Failed, res.BytesFreed
		if res.Partial() {
			total.Outcome = RunPartial
		}
	}
	total.endedBy(applyErr)
	return append(out, total)
}

// endedBy sets a run's total record's outcome from the error its apply
// ended with: interrupted when cancelled, failed on another error.
func (r *Record) endedBy(err error) {
	switch {
	case errors.Is(err, context.Canceled):
		r.Outcome, r.Error = RunInterrupted, err.Error()
	case err != nil:
		r.Outcome, r.Error = RunFailed, err.Error()
	}
}

// ErrNoRunID is returned by Log for a Run without an ID: its records
// could not be told from another run's.
var ErrNoRunID = errors.New("history: the run has no ID")

// LogContext appends a run's records (Records) to the journal of its FS
// root, bounded by ctx (Journal.AppendContext): a journal another process
// keeps locked fails with ErrBusy instead of blocking the run.
func LogContext(ctx context.Context, now time.Time, run Run, plan *retention.Plan, res *retention.Result, applyErr error) error {
	if run.ID == "" {
		return ErrNoRunID
	}
	j, err := ForFSRoot(run.FSRoot)
	if err != nil {
		return err
	}
	if plan == nil && applyErr == nil {
		return retention.ErrNoPlan // nothing to record, and "ok" would be a lie
	}
	return j.AppendContext(ctx, records(now, run, plan, res, applyErr))
}

// Filter selects records.
type Filter struct {
	// Ident, when set, keeps the release records whose release satisfies
	// it (core/redis, core/redis/6.2.5...), and the binlink records whose
	// old or new release does.
	Ident *pkgstore.Ident
	// Since, when set, keeps records at or after it.
	Since time.Time
}

// Match reports whether r passes the filter.
func (f Filter) match(r Record) bool {
	if !f.Since.IsZero() && r.Time.Before(f.Since) {
		return false
	}
	if f.Ident != nil {
		switch r.Kind {
		case KindRelease:
			return satisfies(r.Ident, *f.Ident)
		case KindBinlink:
			return satisfies(r.Ident, *f.Ident) || satisfies(r.NewIdent, *f.Ident)
		}
		return false
	}
	return true
}

// satisfies reports whether ident parses and satisfies pattern.
func satisfies(ident string, pattern pkgstore.Ident) bool {
	id, err := pkgstore.ParseIdent(ident)
	return err == nil && id.Satisfies(pattern)
}

// Select returns the records that pass the filter, in order.
func (f Filter) Select(recs []Record) []Record {
	return slices.DeleteFunc(slices.Clone(recs), func(r Record) bool { return !f.match(r) })
}

// RunID names a run of job started at start, on this process: what every
// run's records carry (Run.ID).
func RunID(job string, start time.Time) string {
	return fmt.Sprintf("%s-%s-%d", job, start.UTC().Format("20060102T150405Z"), os.Getpid())
}

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
	KindRun      Kind = "run"
	KindRelease  Kind = "release"
	KindBinlink  Kind = "binlink"
	KindLeftover Kind = "leftover" // a directory outside a release (Path)
)

// Outcomes of a run record; a release record's is its RemovalStatus.
const (
	RunOK          = "ok"
	RunPartial     = "partial"     // some removals failed
	RunFailed      = "failed"      // stopped with an error
	RunInterrupted = "interrupted" // cancelled; what was hidden was put back
)

// Jobs; a scheduled job records its type ("prune", "pressure").
const (
	JobRun      = "run"
	JobBinlinks = "binlinks"
)

// Policy is the retention policy of a run, as it was given.
type Policy struct {
	KeepLatest     int      `json:"keep_latest"`
	SelfKeepLatest int      `json:"self_keep_latest,omitempty"`
	Exclude        []string `json:"exclude,omitempty"`
	// Pins are Exclude with each one's source (flag, environment, file...).
	Pins                 []Pin    `json:"pins,omitempty"`
	Only                 []string `json:"only,omitempty"`
	KeepLatestFor        []string `json:"keep_latest_for,omitempty"`
	ServicesOnly         bool     `json:"services_only,omitempty"`
	NoDeps               bool     `json:"no_deps,omitempty"`
	MinAge               string   `json:"min_age"`
	AllowDamaged         bool     `json:"allow_damaged,omitempty"`
	IgnoreUninstallHooks bool     `json:"ignore_uninstall_hooks,omitempty"`
}

type Pin struct {
	Pin    string `json:"pin"`
	Source string `json:"source,omitempty"`
}

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
	Time   time.Time `json:"time"`
	Kind   Kind      `json:"kind"`
	RunID  string    `json:"run_id"`
	Job    string    `json:"job"`
	JobKey string    `json:"job_key,omitempty"`
	Owner  string    `json:"owner,omitempty"`
	FSRoot string    `json:"fs_root"`
	Policy Policy    `json:"policy,omitzero"`
	// Ident is the release; of a binlink record, the one it pointed into.
	Ident   string `json:"ident,omitempty"`
	Outcome string `json:"outcome"`
	// Link is FS-root-relative (binlink records).
	Link      string `json:"link,omitempty"`
	Target    string `json:"target,omitempty"`
	NewTarget string `json:"new_target,omitempty"`
	NewIdent  string `json:"new_ident,omitempty"`
	// Path is store-relative (leftover records).
	Path        string             `json:"path,omitempty"`
	Why         string             `json:"why,omitempty"`
	Relinked    int                `json:"relinked,omitempty"`
	Reasons     []retention.Reason `json:"reasons,omitempty"`
	InstalledBy string             `json:"installed_by,omitempty"`
	Error       string             `json:"error,omitempty"`
	BytesFreed  int64              `json:"bytes_freed"`
	// Removed, Kept (at revalidation) and Failed count a run's removals.
	Removed int `json:"removed,omitempty"`
	Kept    int `json:"kept,omitempty"`
	Failed  int `json:"failed,omitempty"`
	// Releases and Keep are the plan's (absent from older records).
	Releases int `json:"releases,omitempty"`
	Keep     int `json:"keep,omitempty"`
}

var ErrBadRecord = errors.New("not a history record")

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

// records are an applied plan's records, the run's last; res may be nil.
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

func (r *Record) endedBy(err error) {
	switch {
	case errors.Is(err, context.Canceled):
		r.Outcome, r.Error = RunInterrupted, err.Error()
	case err != nil:
		r.Outcome, r.Error = RunFailed, err.Error()
	}
}

var ErrNoRunID = errors.New("history: the run has no ID")

// LogContext appends a run's records to its FS root's journal, bounded by
// ctx (ErrBusy rather than blocking the run).
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
	// Ident keeps the release and binlink records of releases satisfying it.
	Ident *pkgstore.Ident
	Since time.Time
}

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

func satisfies(ident string, pattern pkgstore.Ident) bool {
	id, err := pkgstore.ParseIdent(ident)
	return err == nil && id.Satisfies(pattern)
}

func (f Filter) Select(recs []Record) []Record {
	return slices.DeleteFunc(slices.Clone(recs), func(r Record) bool { return !f.match(r) })
}

func RunID(job string, start time.Time) string {
	return fmt.Sprintf("%s-%s-%d", job, start.UTC().Format("20060102T150405Z"), os.Getpid())
}

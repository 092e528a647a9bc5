package schedule

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
)

// Job is an effective job: what actually runs. Schedules whose job type,
// canonical store, randomized spec and parameters are identical share one
// Job; an explicit cron spec always gets a Job of its own.
type Job struct {
	Key    string // a hash of what makes it this job, never of its owner
	Type   JobType
	Store  string // canonical store path
	FSRoot string // the owner's FS root, as written
	// FSRoots are the FS roots of every definition whose store is this
	// job's, the owner's first: a prune keeps what any of them protects.
	FSRoots []string
	Spec    Spec
	Cron    string // resolved 5-field expression
	Params  Params
	// Owner is the oldest member by created time (ties: by name);
	// Members lists every schedule in the job, owner first.
	Owner   string
	Members []string
	Limits  *pressure.Limits // a pressure job's

	root string // FSRoot resolved: its state file, its machine identity
}

// PinSource names where the job's excludes come from, for the plan's
// reasons and the history: `schedule "team-a" [prune] exclude`.
func (j Job) PinSource() string {
	table := "prune"
	if j.Type == Pressure {
		table = "pressure"
	}
	return fmt.Sprintf("schedule %q [%s] exclude", j.Owner, table)
}

type member struct {
	name    string
	created time.Time
	fsRoot  string
	root    string // fsRoot resolved
	spec    Spec
}

// buildJobs groups definitions into effective jobs, sorted by key.
func buildJobs(defs []Definition, machine func(root string) string, loc *time.Location, created func(Definition) time.Time, ids map[string]string) []Job {
	defs = canonicalDefs(defs)
	type group struct {
		job     Job
		in      hashInput
		members []member
	}
	groups := map[string]*group{}
	for _, d := range defs {
		c := created(d)
		for _, jd := range d.Jobs {
			params := ""
			if jd.Type == Prune {
				params = jd.Params.canonical()
			}
			id := d.Store
			if v, ok := ids[d.Store]; ok {
				id = v
			}
			in := hashInput{Store: id, Type: jd.Type, Params: params, Spec: jd.Spec.Canonical, Zone: loc}
			var key string
			if jd.Spec.Random {
				key = "r-" + shortHash(in.Store, string(in.Type), in.Params, in.Spec)
			} else {
				// Explicit specs are never merged: the name is part of it.
				key = "e-" + shortHash(d.Name, in.Store, string(in.Type), in.Params, in.Spec)
			}
			g := groups[key]
			if g == nil {
				g = &group{job: Job{Key: key, Type: jd.Type, Store: d.Store, Spec: jd.Spec, Params: jd.Params}, in: in}
				groups[key] = g
			}
			g.members = append(g.members, member{name: d.Name, created: c, fsRoot: d.FSRoot, root: d.root, spec: jd.Spec})
		}
	}
	roots := map[string][]Definition{}
	for _, d := range defs {
		roots[d.Store] = append(roots[d.Store], d)
	}
	var jobs []Job
	for _, g := range groups {
		slices.SortFunc(g.members, func(a, b member) int {
			if c := a.created.Compare(b.created); c != 0 {
				return c
			}
			return cmp.Compare(a.name, b.name)
		})
		j := g.job
		j.Owner, j.FSRoot, j.root, j.Spec = g.members[0].name, g.members[0].fsRoot, g.members[0].root, g.members[0].spec
		// Through the oldest member's FS root that reaches the store
		// without a symlink, through which hab-gc writes nothing.
		if !storeDirect(j.FSRoot) {
			if i := slices.IndexFunc(g.members, func(m member) bool { return storeDirect(m.fsRoot) }); i > 0 {
				j.FSRoot, j.root = g.members[i].fsRoot, g.members[i].root
			}
		}
		g.in.Machine = machine(j.root)
		j.Cron = resolveSpec(j.Spec, g.in)
		for _, m := range g.members {
			j.Members = append(j.Members, m.name)
		}
		j.FSRoots = fsRoots(j.FSRoot, roots[j.Store])
		jobs = append(jobs, j)
	}
	slices.SortFunc(jobs, func(a, b Job) int { return cmp.Compare(a.Key, b.Key) })
	return jobs
}

func storeDirect(fsRoot string) bool {
	for _, p := range []string{"hab", pkgstore.StoreDir} {
		if fi, err := os.Lstat(filepath.Join(fsRoot, filepath.FromSlash(p))); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// fsRoots lists owner first, then the FS roots of defs that are another
// canonical root, sorted.
func fsRoots(owner string, defs []Definition) []string {
	seen := map[string]bool{}
	if c, err := canonicalPath(owner); err == nil {
		seen[c] = true
	}
	var others []string
	for _, d := range defs {
		if !seen[d.root] {
			seen[d.root] = true
			others = append(others, d.FSRoot)
		}
	}
	slices.Sort(others)
	return append([]string{owner}, others...)
}

// buildPressureJobs makes one pressure job per store, with the
// parameters and limits of the oldest definition that asks.
func buildPressureJobs(defs []Definition, created func(Definition) time.Time) []Job {
	defs = canonicalDefs(defs)
	byStore := map[string][]Definition{}
	roots := map[string][]Definition{}
	for _, d := range defs {
		roots[d.Store] = append(roots[d.Store], d)
		if d.Pressure != nil {
			byStore[d.Store] = append(byStore[d.Store], d)
		}
	}
	var jobs []Job
	for store, ds := range byStore {
		slices.SortFunc(ds, func(a, b Definition) int {
			if c := created(a).Compare(created(b)); c != 0 {
				return c
			}
			return cmp.Compare(a.Name, b.Name)
		})
		owner := ds[0]
		limits := owner.Pressure.Limits
		j := Job{Key: "p-" + shortHash(store, string(Pressure)), Type: Pressure, Store: store, FSRoot: owner.FSRoot, root: owner.root,
			Params: owner.Pressure.Params, Owner: owner.Name, Limits: &limits}
		for _, d := range ds {
			j.Members = append(j.Members, d.Name)
		}
		if !storeDirect(j.FSRoot) { // as for prunes (buildJobs)
			if i := slices.IndexFunc(roots[store], func(d Definition) bool { return storeDirect(d.FSRoot) }); i >= 0 {
				j.FSRoot, j.root = roots[store][i].FSRoot, roots[store][i].root
			}
		}
		j.FSRoots = fsRoots(j.FSRoot, roots[store])
		jobs = append(jobs, j)
	}
	slices.SortFunc(jobs, func(a, b Job) int { return cmp.Compare(a.Key, b.Key) })
	return jobs
}

func canonicalDefs(defs []Definition) []Definition {
	out := make([]Definition, len(defs))
	for i, d := range defs {
		if d.FSRoot != "" {
			if st, err := canonicalStore(d.FSRoot); err == nil {
				d.Store = st
			}
			d.root = rootOf(d.FSRoot)
		}
		out[i] = d
	}
	return out
}

func shortHash(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:8])
}

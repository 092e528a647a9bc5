package watch

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestPropertyIncrementalPlan checks that a purge's plan made from the
// last plan's inventory and what inotify reported since (watcher.plan,
// retention.PlanRescan) decides as a full retention.PlanStore of the
// store does: random stores, then random changes (releases installed as
// `hab pkg install` does or written in place, uninstalled, replaced with
// other deps; version and name directories made, removed and moved;
// releases in version and name directories whose names start with a dot;
// spec files written and removed; binlinks; installs in progress and
// killed installs' leftovers; damaged releases; a real Apply of the
// plan), after each of which both plans are made with the same clock and
// policy (half the time limited as a purge's: one package, perhaps a
// version of another, services only, no-deps) and compared: every
// release's action and reasons, and the inventories they were made from
// (releases, deps, times, problems, installs, services, binlinks).
func TestPropertyIncrementalPlan(t *testing.T) {
	const steps = 16
	incremental := 0
	seeds := forEachSeed(t, 10, 4, func(t *testing.T, seed uint64) {
		incremental += propertyIncremental(t, seed, steps)
	})
	// A plan after a damaged step fails (unless the policy allows it),
	// and the next reads everything: most are made incrementally still.
	if incremental < seeds*steps/2 {
		t.Fatalf("%d of %d plans were made incrementally", incremental, seeds*steps)
	}
}

// forEachSeed runs prop once for each of seeds seeds (of short under
// -short), each in a subtest named by its seed, and returns how many it
// ran.
func forEachSeed(t *testing.T, seeds, short int, prop func(t *testing.T, seed uint64)) int {
	if testing.Short() {
		seeds = short
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { prop(t, seed) })
	}
	return seeds
}

// propertyWatcher is the property tests' watcher of store under pol,
// closed when the test ends, reading inotify's events (t fails when it
// cannot).
func propertyWatcher(t *testing.T, store *pkgstore.Store, pol retention.Policy) *watcher {
	t.Helper()
	w := newWatcher(Options{Store: store, Policy: pol, All: true})
	t.Cleanup(w.close)
	if w.fsw == nil {
		t.Fatal("no inotify")
	}
	return w
}

// handleChanges handles every event of the changes made so far: it
// writes the sentinel file in the specs directory, whose event comes
// after theirs in the one inotify queue, and reads events until its own
// (drain).
func handleChanges(t *testing.T, w *watcher) {
	t.Helper()
	sentinel := filepath.Join(w.specsDir, "sentinel")
	if err := os.WriteFile(sentinel, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	drain(t, w, sentinel)
}

// incStore is the test's picture of the store it changes at random.
type incStore struct {
	t    *testing.T
	rng  *rand.Rand
	b    *storetest.Builder
	in   *storetest.Installer
	n    int // a counter for unique release stamps and names
	pkgs []string
}

func (s *incStore) releases() []string {
	var out []string
	for _, pkg := range s.pkgs {
		vs, _ := os.ReadDir(s.b.Path("hab/pkgs/" + pkg))
		for _, v := range vs {
			rs, _ := os.ReadDir(s.b.Path("hab/pkgs/" + pkg + "/" + v.Name()))
			for _, r := range rs {
				if !strings.HasPrefix(r.Name(), ".") {
					out = append(out, pkg+"/"+v.Name()+"/"+r.Name())
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func (s *incStore) pick(list []string) (string, bool) {
	if len(list) == 0 {
		return "", false
	}
	return list[s.rng.IntN(len(list))], true
}

// deps are up to 3 installed releases, and rarely one not installed.
func (s *incStore) deps(not string) []string {
	var out []string
	rels := s.releases()
	for range s.rng.IntN(4) {
		if d, ok := s.pick(rels); ok && !strings.HasPrefix(d, not+"/") && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if s.rng.IntN(12) == 0 {
		out = append(out, "core/missing/1.0/20200101000000")
	}
	return out
}

// newIdent is a new release of pkg (a new version one time in three).
func (s *incStore) newIdent(pkg string) string {
	s.n++
	version := fmt.Sprintf("1.%d", s.rng.IntN(3))
	if s.rng.IntN(3) == 0 {
		version = fmt.Sprintf("2.%d", s.n)
	}
	return fmt.Sprintf("%s/%s/2021%04d%06d", pkg, version, 1000+s.n, s.n)
}

func (s *incStore) write(ident string, deps []string) {
	s.b.Add(storetest.Release{Ident: ident, Deps: deps, TDeps: deps, Files: map[string]string{"bin/x": "x"}})
}

// change makes one random change and says what it was.
func (s *incStore) change() string {
	rng := s.rng
	pkg, _ := s.pick(s.pkgs)
	switch k := rng.IntN(18); k {
	case 15, 16: // a release in a dot-named version or name directory
		s.n++
		id := fmt.Sprintf("%s/.v%d/2021%04d%06d", pkg, rng.IntN(2), 1000+s.n, s.n)
		if rng.IntN(2) == 0 {
			parts := strings.Split(pkg, "/")
			id = fmt.Sprintf("%s/.n%d/1.0/2021%04d%06d", parts[0], rng.IntN(2), 1000+s.n, s.n)
		}
		if rng.IntN(2) == 0 {
			s.write(id, s.deps(pkg))
			return "dot write " + id
		}
		deps := slices.DeleteFunc(s.deps(pkg), func(d string) bool { return !s.in.Installed(d) })
		s.in.Publish(storetest.Archive{Ident: id, Deps: deps, TDeps: deps})
		if err := s.in.Install(id); err != nil {
			s.t.Fatal(err)
		}
		return "dot install " + id
	case 0, 1: // installed as hab pkg install does: unpacked aside, renamed in
		id := s.newIdent(pkg)
		deps := slices.DeleteFunc(s.deps(pkg), func(d string) bool { return !s.in.Installed(d) })
		s.in.Publish(storetest.Archive{Ident: id, Deps: deps, TDeps: deps})
		if err := s.in.Install(id); err != nil {
			s.t.Fatal(err)
		}
		return "install " + id
	case 2: // written in place
		id := s.newIdent(pkg)
		s.write(id, s.deps(pkg))
		return "write " + id
	case 3: // a new package, maybe of a new origin
		s.n++
		origin := "core"
		if rng.IntN(3) == 0 {
			origin = fmt.Sprintf("o%d", s.n)
		}
		pkg = fmt.Sprintf("%s/n%d", origin, s.n)
		s.pkgs = append(s.pkgs, pkg)
		id := s.newIdent(pkg)
		s.write(id, s.deps(pkg))
		return "new package " + id
	case 4, 5: // uninstalled
		if id, ok := s.pick(s.releases()); ok {
			s.b.Remove("hab/pkgs/" + id)
			return "remove " + id
		}
	case 6: // replaced, with other deps
		if id, ok := s.pick(s.releases()); ok {
			s.b.Remove("hab/pkgs/" + id)
			pkg := strings.Join(strings.Split(id, "/")[:2], "/")
			s.write(id, s.deps(pkg))
			return "replace " + id
		}
	case 7: // a spec loads a package, a version or a release, or goes
		specs, _ := filepath.Glob(s.b.Path(pkgstore.SpecsDir + "/*.spec"))
		if len(specs) > 0 && rng.IntN(3) == 0 {
			spec, _ := s.pick(specs)
			os.Remove(spec)
			return "unload " + filepath.Base(spec)
		}
		ident := pkg
		if id, ok := s.pick(s.releases()); ok && rng.IntN(2) == 0 {
			parts := strings.Split(id, "/")
			ident = strings.Join(parts[:2+rng.IntN(3)], "/")
		}
		name := fmt.Sprintf("svc%d", rng.IntN(3))
		s.b.Spec(name, ident)
		return "spec " + name + " " + ident
	case 8: // a binlink made or removed
		link := s.b.Path(fmt.Sprintf("bin/x%d", rng.IntN(3)))
		if _, err := os.Lstat(link); err == nil && rng.IntN(2) == 0 {
			os.Remove(link)
			return "unlink " + link
		}
		if id, ok := s.pick(s.releases()); ok {
			os.Remove(link)
			s.b.Binlink("bin", filepath.Base(link), "/hab/pkgs/"+id+"/bin/x")
			return "binlink " + id
		}
	case 9: // an install in progress (or a killed one's leftover), or it goes
		ins, _ := filepath.Glob(s.b.Path("hab/pkgs/*/*/*/.hab-pkg-install-*"))
		if len(ins) > 0 && rng.IntN(2) == 0 {
			dir, _ := s.pick(ins)
			os.RemoveAll(dir)
			return "install dir removed " + dir
		}
		id := s.newIdent(pkg)
		parts := strings.Split(id, "/")
		tmp := "hab/pkgs/" + strings.Join(parts[:3], "/") + "/.hab-pkg-install-" + parts[3] + "abcdef"
		if deps := s.deps(pkg); len(deps) > 0 {
			s.b.File(tmp+"/hab/pkgs/"+id+"/TDEPS", strings.Join(deps, "\n")+"\n")
		} else {
			s.b.Mkdir(tmp + "/hab/pkgs/" + id)
		}
		return "install dir " + tmp
	case 10: // a version directory removed whole
		if id, ok := s.pick(s.releases()); ok {
			v := strings.Join(strings.Split(id, "/")[:3], "/")
			s.b.Remove("hab/pkgs/" + v)
			return "remove version " + v
		}
	case 11: // a version or name directory moved (its releases' IDENT then differ)
		if id, ok := s.pick(s.releases()); ok {
			parts := strings.Split(id, "/")
			s.n++
			from, to := strings.Join(parts[:3], "/"), strings.Join(parts[:2], "/")+fmt.Sprintf("/9.%d", s.n)
			if rng.IntN(2) == 0 {
				from, to = strings.Join(parts[:2], "/"), fmt.Sprintf("%s/m%d", parts[0], s.n)
				s.pkgs = append(slices.DeleteFunc(s.pkgs, func(p string) bool { return p == from }), to)
			}
			if err := os.Rename(s.b.Path("hab/pkgs/"+from), s.b.Path("hab/pkgs/"+to)); err != nil {
				s.t.Fatal(err)
			}
			return "move " + from + " to " + to
		}
	case 12: // damage: a line that is not an ident
		id := s.newIdent(pkg)
		s.b.Add(storetest.Release{Ident: id, TDeps: []string{"not an ident"}})
		return "damaged " + id
	case 13: // a release of another target
		id := s.newIdent(pkg)
		s.b.Add(storetest.Release{Ident: id, Target: "aarch64-darwin"})
		return "other target " + id
	default:
		return "apply"
	}
	return "nothing"
}

// newIncStore makes a random store of 2 to 6 packages, 1 to 4 releases
// each, with a specs directory and hab/bin, from seed (stream picks the
// random sequence), and opens it for the rest of the test.
func newIncStore(t *testing.T, seed, stream uint64) (*incStore, *pkgstore.Store) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, stream))
	b := storetest.New(t)
	s := &incStore{t: t, rng: rng, b: b, in: storetest.NewInstaller(b.Root, seed)}
	b.Mkdir(pkgstore.SpecsDir).Mkdir("bin")
	for p := range 2 + rng.IntN(5) {
		pkg := fmt.Sprintf("core/p%d", p)
		s.pkgs = append(s.pkgs, pkg)
		for range 1 + rng.IntN(4) {
			s.write(s.newIdent(pkg), s.deps(pkg))
		}
	}
	return s, storetest.Open(t, b.Root)
}

func propertyIncremental(t *testing.T, seed uint64, steps int) (incremental int) {
	ctx := context.Background()
	s, store := newIncStore(t, seed, 35)
	rng := s.rng
	pol := retention.Policy{KeepLatest: 1 + rng.IntN(3), MinAge: retention.NoMinAge, FreeDeps: rng.IntN(2) == 0,
		AllowDamaged: rng.IntN(4) > 0}
	w := propertyWatcher(t, store, pol)
	for step := range steps {
		what := s.change()
		if what == "apply" && w.reads.last != nil {
			// A real purge's removals, made from the last plan (the
			// inventory the watcher keeps): Apply's events are noted as
			// any others.
			p, err := retention.Compute(w.reads.last.Inventory, pol, time.Now(), store.HasUninstallHook)
			if err == nil {
				if _, err := p.Apply(ctx, store, retention.ApplyOptions{Settle: retention.NoSettle}); err != nil {
					t.Logf("apply: %v", err)
				}
			}
		}
		// Every event of the change is handled before the plan.
		handleChanges(t, w)
		if w.fsw == nil {
			t.Fatalf("step %d (%s): the watch fell back to polling", step, what)
		}
		now := time.Now()
		if rng.IntN(2) == 0 {
			now = now.Add(2 * time.Hour) // install directories are leftovers by it
		}
		scan := pkgstore.Options{Now: now, Target: storetest.DefaultTarget, Workers: 1 + rng.IntN(4)}
		prev := w.reads.last != nil && !w.reads.full
		// Half the plans are a purge's: limited to one package, freeing
		// what only its removals needed (a scoped plan).
		planPol := pol
		if pkg, ok := s.pick(s.pkgs); ok && rng.IntN(2) == 0 {
			id, _ := pkgstore.ParseIdent(pkg)
			planPol.Only, planPol.FreeDeps = []pkgstore.Ident{id}, true
			if rels := s.releases(); rng.IntN(3) == 0 && len(rels) > 0 {
				r, _ := s.pick(rels)
				parts := strings.Split(r, "/")
				planPol.Only = append(planPol.Only, pkgstore.Ident{Origin: parts[0], Name: parts[1], Version: parts[2]})
			}
			planPol.ServicesOnly = rng.IntN(3) == 0
			planPol.NoDeps = rng.IntN(4) == 0
		} else if rng.IntN(4) == 0 {
			planPol.ServicesOnly = true
		}
		inc, ierr := w.plan(ctx, planPol, now, scan)
		full, ferr := retention.PlanStore(ctx, store, planPol, now, scan)
		if prev {
			incremental++
		}
		if (ierr == nil) != (ferr == nil) || (ierr != nil && ierr.Error() != ferr.Error()) {
			t.Fatalf("step %d (%s): the incremental plan's error %v, the full plan's %v", step, what, ierr, ferr)
		}
		if ierr != nil {
			continue
		}
		if a, b := inventoryView(inc.Inventory), inventoryView(full.Inventory); !reflect.DeepEqual(a, b) {
			t.Fatalf("step %d (%s): the inventories differ:\nincremental %+v\nfull        %+v", step, what, a, b)
		}
		g := depgraph.New(inc.Inventory)
		for r := range pkgstore.Ref(g.Len()) {
			if a, b := inc.Graph.Deps(r), g.Deps(r); !slices.Equal(a, b) {
				t.Fatalf("step %d (%s): the incremental plan's graph has %s needing %v, a graph made afresh %v", step, what, inc.Inventory.Ident(r), a, b)
			}
		}
		if a, b := decisionsViews(inc, full); !reflect.DeepEqual(a, b) {
			t.Fatalf("step %d (%s): the decisions differ:\nincremental %v\nfull        %v", step, what, a, b)
		}
	}
	t.Logf("%d of %d plans made incrementally", incremental, steps)
	return incremental
}

// drain handles the watcher's events until the sentinel file's (written
// again when the watches are set again, the old watcher's events lost).
func drain(t *testing.T, w *watcher, sentinel string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for fsw := w.fsw; w.fsw != nil; {
		if w.fsw != fsw {
			fsw = w.fsw
			if err := os.WriteFile(sentinel, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case ev := <-fsw.Events:
			w.handle(ev)
			if ev.Name == sentinel && ev.Has(fsnotify.Write|fsnotify.Create) && w.fsw == fsw {
				return
			}
		case err := <-fsw.Errors:
			w.handleError(err)
		case <-timeout:
			t.Fatal("no event for the sentinel")
		}
	}
}

type releaseView struct {
	Ident                string
	Deps, TDeps          []string
	ModTime, ChangeTime  time.Time
	Dev, Ino             uint64
	Damaged, DepsUnknown bool
}

type invView struct {
	Releases   []releaseView
	Problems   []pkgstore.Problem
	Installing []pkgstore.Installing
	Fetched    []pkgstore.Installing
	Opaque     []pkgstore.Opaque
	Debris     []string
	Services   []pkgstore.Service
	Binlinks   []pkgstore.Binlink
	Store      pkgstore.StoreID
}

// inventoryView is what an inventory says, Refs replaced by the idents
// they stand for (their numbers differ between scans).
func inventoryView(inv *pkgstore.Inventory) invView {
	v := invView{Problems: inv.Problems, Installing: inv.Installing, Fetched: inv.Fetched, Opaque: inv.Opaque,
		Debris: inv.Debris, Services: inv.Services, Binlinks: inv.Binlinks, Store: inv.Store}
	idents := func(refs []pkgstore.Ref) []string {
		var out []string
		for _, r := range refs {
			out = append(out, inv.Ident(r).String())
		}
		return out
	}
	for _, r := range inv.Releases {
		v.Releases = append(v.Releases, releaseView{Ident: r.Ident.String(), Deps: idents(r.Deps), TDeps: idents(r.TDeps),
			ModTime: r.ModTime, ChangeTime: r.ChangeTime, Dev: r.Dev, Ino: r.Ino, Damaged: r.Damaged, DepsUnknown: r.DepsUnknown})
	}
	return v
}

// decisionsViews are what inc and full decide of every release full
// decides (its action; its reasons too when inc lists it), and what each
// waits for. A scoped plan (a purge's) lists the releases of its scope
// and what they need: of another it says Keep and its own reasons, which
// are not all a whole plan's.
func decisionsViews(inc, full *retention.Plan) (a, b []string) {
	listed := map[pkgstore.Ident]bool{}
	for _, d := range inc.Decisions {
		listed[d.Release.Ident] = true
	}
	return decisionsView(inc, full, listed), decisionsView(full, full, listed)
}

func decisionsView(p, full *retention.Plan, listed map[pkgstore.Ident]bool) []string {
	out := []string{"install wait: " + p.InstallWait}
	for _, fd := range full.Decisions {
		d, ok := p.Decision(fd.Release.Ident)
		if !ok {
			out = append(out, fd.Release.Ident.String()+" not decided")
			continue
		}
		if !listed[d.Release.Ident] {
			out = append(out, fmt.Sprintf("%s %s", d.Release.Ident, d.Action))
			continue
		}
		// A dependency's chain names one of the releases that need it,
		// picked by Ref order, which differs between scans (a scan's
		// workers intern idents in the order they read them): the code
		// says it is kept as a dependency, not which chain is shown.
		var reasons []string
		for _, r := range d.Reasons {
			if r.Code == retention.CodeDependency {
				reasons = append(reasons, string(r.Code))
				continue
			}
			reasons = append(reasons, string(r.Code)+": "+r.Text)
		}
		out = append(out, fmt.Sprintf("%s %s %q", d.Release.Ident, d.Action, reasons))
	}
	return out
}

package pkgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// rescanStore is TestPropertyRescan's store, changed at random; changed
// collects the ORIGIN/NAME directories each change touched, as a
// watcher would report them.
type rescanStore struct {
	t       *testing.T
	rng     *rand.Rand
	b       *storetest.Builder
	n       int
	pkgs    []string
	changed map[string]bool
}

func (s *rescanStore) releases() []string {
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

func (s *rescanStore) pick(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[s.rng.IntN(len(list))]
}

// ident is a release of pkg: a new one, or (one time in four) one that
// may already be named by some release's dependencies, or installed.
func (s *rescanStore) ident(pkg string) string {
	if s.rng.IntN(4) == 0 {
		return fmt.Sprintf("%s/1.%d/2020010100000%d", pkg, s.rng.IntN(2), s.rng.IntN(3))
	}
	s.n++
	return fmt.Sprintf("%s/%d.%d/2021%010d", pkg, s.rng.IntN(3), s.rng.IntN(3), s.n)
}

// deps are up to 4 idents: installed releases, releases that may come
// later, and ones never installed.
func (s *rescanStore) deps() []string {
	var out []string
	rels := s.releases()
	for range s.rng.IntN(5) {
		var d string
		switch s.rng.IntN(6) {
		case 0:
			d = s.ident(s.pick(s.pkgs))
		case 1:
			d = fmt.Sprintf("core/missing/1.0/2020010100000%d", s.rng.IntN(3))
		default:
			d = s.pick(rels)
		}
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func (s *rescanStore) mark(rel string) {
	parts := strings.Split(rel, "/")
	s.changed[parts[0]+"/"+parts[1]] = true
}

func (s *rescanStore) write(ident string) {
	deps := s.deps()
	tdeps := deps
	if s.rng.IntN(3) == 0 {
		tdeps = append(slices.Clone(deps), s.deps()...)
	}
	s.b.Add(storetest.Release{Ident: ident, Deps: deps, TDeps: tdeps})
	s.mark(ident)
}

func (s *rescanStore) change() string {
	rng := s.rng
	pkg := s.pick(s.pkgs)
	switch rng.IntN(14) {
	case 0, 1, 2:
		id := s.ident(pkg)
		if _, err := os.Stat(s.b.PkgPath(id)); err == nil {
			return "nothing"
		}
		s.write(id)
		return "write " + id
	case 3, 4:
		if id := s.pick(s.releases()); id != "" {
			s.b.Remove("hab/pkgs/" + id)
			s.mark(id)
			return "remove " + id
		}
	case 5:
		if id := s.pick(s.releases()); id != "" {
			s.b.Remove("hab/pkgs/" + id)
			s.write(id)
			return "replace " + id
		}
	case 6: // an install directory, or it goes
		ins := s.globbed("hab/pkgs/" + pkg + "/*/.hab-pkg-install-*")
		if len(ins) > 0 && rng.IntN(2) == 0 {
			d := s.pick(ins)
			s.b.Remove(d)
			s.mark(strings.TrimPrefix(d, "hab/pkgs/"))
			return "install dir removed " + d
		}
		id := s.ident(pkg)
		parts := strings.Split(id, "/")
		tmp := "hab/pkgs/" + strings.Join(parts[:3], "/") + "/.hab-pkg-install-" + parts[3] + "abcdef"
		s.b.File(tmp+"/hab/pkgs/"+id+"/TDEPS", strings.Join(s.deps(), "\n")+"\n")
		s.mark(id)
		return "install dir " + tmp
	case 7: // hab-gc's debris, or it goes
		deb := s.globbed("hab/pkgs/" + pkg + "/*/" + pkgstore.DebrisPrefix + "*")
		if len(deb) > 0 && rng.IntN(2) == 0 {
			d := s.pick(deb)
			s.b.Remove(d)
			s.mark(strings.TrimPrefix(d, "hab/pkgs/"))
			return "debris removed " + d
		}
		if id := s.pick(s.releases()); id != "" {
			parts := strings.Split(id, "/")
			s.n++
			d := "hab/pkgs/" + strings.Join(parts[:3], "/") + "/" + pkgstore.DebrisPrefix + "pending-" + parts[3] + fmt.Sprintf("-abcde%05d", s.n)
			if err := os.Rename(s.b.PkgPath(id), s.b.Path(d)); err != nil {
				s.t.Fatal(err)
			}
			s.mark(id)
			return "hidden " + id
		}
	case 8: // damage, or a release of another target
		id := s.ident(pkg)
		if _, err := os.Stat(s.b.PkgPath(id)); err == nil {
			return "nothing"
		}
		if rng.IntN(2) == 0 {
			s.b.Add(storetest.Release{Ident: id, TDeps: []string{"not an ident"}})
		} else {
			s.b.Add(storetest.Release{Ident: id, Target: "aarch64-darwin"})
		}
		s.mark(id)
		return "odd " + id
	case 9: // a new package, perhaps of a new origin
		s.n++
		origin := "core"
		if rng.IntN(2) == 0 {
			origin = fmt.Sprintf("o%d", rng.IntN(4))
		}
		pkg = fmt.Sprintf("%s/n%d", origin, rng.IntN(6))
		if !slices.Contains(s.pkgs, pkg) {
			s.pkgs = append(s.pkgs, pkg)
		}
		s.write(s.ident(pkg))
		return "new package " + pkg
	case 10: // a version directory goes
		if id := s.pick(s.releases()); id != "" {
			v := strings.Join(strings.Split(id, "/")[:3], "/")
			s.b.Remove("hab/pkgs/" + v)
			s.mark(id)
			return "remove version " + v
		}
	case 11: // a whole package goes
		if pkg != "" && rng.IntN(2) == 0 {
			s.b.Remove("hab/pkgs/" + pkg)
			s.mark(pkg)
			return "remove package " + pkg
		}
	case 12: // a release with an odd version name
		id := pkg + "/2.5.0 rc1/20200101000000"
		s.b.Add(storetest.Release{Ident: id})
		s.mark(pkg)
		return "odd name " + id
	}
	return "nothing"
}

func (s *rescanStore) globbed(pattern string) []string {
	matches, _ := globRel(s.b, pattern)
	return matches
}

func globRel(b *storetest.Builder, pattern string) ([]string, error) {
	abs, err := filepath.Glob(b.Path(pattern))
	var out []string
	for _, a := range abs {
		rel, err := filepath.Rel(b.Root, a)
		if err != nil {
			return nil, err
		}
		out = append(out, filepath.ToSlash(rel)) // slashes on Windows too: mark splits on them
	}
	return out, err
}

// rescanView is everything an inventory answers, with Refs spelled as
// idents.
type rescanView struct {
	Releases    []string
	Problems    []pkgstore.Problem
	Installing  []pkgstore.Installing
	Opaque      []pkgstore.Opaque
	Debris      []string
	MissingDeps []string
	Lookups     []string
	Packages    []string
}

func viewOf(t *testing.T, inv *pkgstore.Inventory, named []pkgstore.Ident, pkgs []string) rescanView {
	t.Helper()
	v := rescanView{Problems: inv.Problems, Installing: inv.Installing, Opaque: inv.Opaque, Debris: inv.Debris}
	idents := func(refs []pkgstore.Ref) string {
		var out []string
		for _, r := range refs {
			out = append(out, inv.Ident(r).String())
		}
		return strings.Join(out, ",")
	}
	for i, r := range inv.Releases {
		if i > 0 && pkgstore.Compare(inv.Releases[i-1].Ident, r.Ident) >= 0 {
			t.Fatalf("releases out of order: %s before %s", inv.Releases[i-1].Ident, r.Ident)
		}
		if inv.ReleaseOf(r.Ref) != r {
			t.Fatalf("%s: ReleaseOf its Ref is not itself", r.Ident)
		}
		v.Releases = append(v.Releases, fmt.Sprintf("%s deps=%s tdeps=%s mod=%s ch=%s dev=%d ino=%d dmg=%v unk=%v",
			r.Ident, idents(r.Deps), idents(r.TDeps), r.ModTime, r.ChangeTime, r.Dev, r.Ino, r.Damaged, r.DepsUnknown))
	}
	for r, d := range inv.MissingDeps() {
		v.MissingDeps = append(v.MissingDeps, r.Ident.String()+" -> "+inv.Ident(d).String())
	}
	// Every Ref looks up as itself.
	for r := range pkgstore.Ref(inv.NumRefs()) {
		id := inv.Ident(r)
		if got, ok := inv.Lookup(id); !ok || got != r {
			t.Fatalf("Lookup(%s) = %d, %v; its Ref is %d", id, got, ok, r)
		}
	}
	// What each ident named anywhere is: installed or not.
	for _, id := range named {
		r, ok := inv.Lookup(id)
		inst := inv.Installed(id)
		switch {
		case inst != nil && (!ok || inv.ReleaseOf(r) != inst):
			t.Fatalf("%s: Installed and Lookup disagree", id)
		case inst != nil:
			v.Lookups = append(v.Lookups, id.String()+" installed")
		default:
			v.Lookups = append(v.Lookups, id.String()+" not installed")
		}
	}
	for _, pkg := range pkgs {
		id, _ := pkgstore.ParseIdent(pkg)
		var rels []string
		for _, r := range inv.Satisfying(id) {
			rels = append(rels, r.Ident.String())
		}
		var pk []string
		for _, r := range inv.Package(id.Origin, id.Name) {
			pk = append(pk, r.Ident.String())
		}
		latest := ""
		if l := inv.Latest(id); l != nil {
			latest = l.Ident.String()
		}
		v.Packages = append(v.Packages, fmt.Sprintf("%s satisfying=%v package=%v latest=%s", pkg, rels, pk, latest))
	}
	return v
}

// TestPropertyRescan: a Rescan of the previous inventory, told which
// ORIGIN/NAME directories changed, answers as a full Scan does: the
// releases (in order, with their dependencies, times and identity), the
// problems, installs, debris, the dependencies not installed
// (MissingDeps), what each ident looks up as, each package's releases;
// every Ref of it looks up as itself; and the inventory it took from is
// not changed. Each Rescan extends the last one's (a chain), over random
// changes: releases written, removed, replaced, hidden as hab-gc hides
// them, install directories and debris made and removed (a part that
// held them becomes clean, and back), damage, releases of another
// target, odd names, whole versions and packages removed, new origins,
// and idents named before they are installed and after they are gone.
// HAB_GC_RESCAN_SEEDS sets how many seeds (12; 3 under -short).
func TestPropertyRescan(t *testing.T) {
	seeds, steps := 12, 30
	if testing.Short() || runtime.GOOS == "windows" {
		seeds = 3 // under Wine a seed takes about 8 s
	}
	if s, err := strconv.Atoi(os.Getenv("HAB_GC_RESCAN_SEEDS")); err == nil {
		seeds = s
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { propertyRescan(t, seed, steps) })
	}
}

func propertyRescan(t *testing.T, seed uint64, steps int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 36))
	b := storetest.New(t)
	s := &rescanStore{t: t, rng: rng, b: b, changed: map[string]bool{}}
	for p := range 2 + rng.IntN(4) {
		s.pkgs = append(s.pkgs, fmt.Sprintf("core/p%d", p))
	}
	for range 3 + rng.IntN(8) {
		s.write(s.ident(s.pick(s.pkgs)))
	}
	store := storetest.Open(t, b.Root)
	opts := pkgstore.Options{Target: storetest.DefaultTarget, Now: time.Now()}
	prev, err := store.Scan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	var history []string
	for step := range steps {
		clear(s.changed)
		var whats []string
		for range 1 + rng.IntN(3) {
			whats = append(whats, s.change())
		}
		history = append(history, strings.Join(whats, "; "))
		var changed []pkgstore.Ident
		for c := range s.changed {
			id, err := pkgstore.ParseIdent(c)
			if err != nil {
				t.Fatal(err)
			}
			changed = append(changed, id)
		}
		opts.Workers = 1 + rng.IntN(4)
		// Every ident ever named, for the lookups.
		named := map[string]pkgstore.Ident{}
		full, err := store.Scan(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range []*pkgstore.Inventory{prev, full} {
			for r := range pkgstore.Ref(inv.NumRefs()) {
				named[inv.Ident(r).String()] = inv.Ident(r)
			}
		}
		var namedList []pkgstore.Ident
		for _, id := range named {
			namedList = append(namedList, id)
		}
		slices.SortFunc(namedList, func(a, b pkgstore.Ident) int { return strings.Compare(a.String(), b.String()) })
		before := viewOf(t, prev, namedList, s.pkgs)
		inc, err := store.Rescan(ctx, prev, changed, opts)
		if err != nil {
			t.Fatal(err)
		}
		if after := viewOf(t, prev, namedList, s.pkgs); !reflect.DeepEqual(before, after) {
			t.Fatalf("step %d (%s): the Rescan changed the inventory it took from", step, history[step])
		}
		a, want := viewOf(t, inc, namedList, s.pkgs), viewOf(t, full, namedList, s.pkgs)
		if !reflect.DeepEqual(a, want) {
			va, vw := reflect.ValueOf(a), reflect.ValueOf(want)
			for i := range va.NumField() {
				if !reflect.DeepEqual(va.Field(i).Interface(), vw.Field(i).Interface()) {
					t.Errorf("%s:\nrescan %v\nscan   %v", va.Type().Field(i).Name, va.Field(i).Interface(), vw.Field(i).Interface())
				}
			}
			t.Fatalf("seed %d step %d: the Rescan differs from a Scan; changes:\n%s", seed, step, strings.Join(history, "\n"))
		}
		prev = inc
	}
}

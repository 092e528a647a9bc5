package retention

import (
	"fmt"
	"github.com/hab-gc/hab-gc/internal/provenance"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// findRoots makes every protected release a root, with its reasons.
func (p *Plan) findRoots() {
	ix := p.indexRoots()
	p.eachPackage(func(rels []*pkgstore.Release) {
		count := p.countRoots(rels)
		for i, r := range rels {
			if rs := p.rootsOf(ix, r, count[i]); len(rs) > 0 {
				p.rootOf[r.Ref] = rs
			}
		}
	})
}

// rootIndex is what makes a release a root besides its count and itself,
// in the order of the reasons: services, binlinks, finders' roots and
// installs (listed); an active install (wait, for every release); what
// damaged directories name (opaque); damage that may hide anything
// (everyone); IDENT problems; mount points.
type rootIndex struct {
	listed        map[pkgstore.Ref][]Reason
	wait          string
	opaque        map[pkgstore.Ref][]Reason
	everyone      []Reason
	identProblems map[string][]string
	mounts        map[pkgstore.Ref][]Reason
}

// indexRoots costs what the lists hold, not what the store holds.
func (p *Plan) indexRoots() *rootIndex {
	inv := p.Inventory
	ix := &rootIndex{}
	listed := func(r *pkgstore.Release, code Code, text string) {
		if ix.listed == nil {
			ix.listed = map[pkgstore.Ref][]Reason{}
		}
		ix.listed[r.Ref] = append(ix.listed[r.Ref], Reason{Code: code, Text: text})
	}
	for _, svc := range inv.Services {
		if svc.PIDFile != "" {
			p.startedRoots(svc, listed)
			continue
		}
		if !svc.Installed {
			continue
		}
		if len(svc.Ambiguous) == 0 {
			if r := inv.Installed(svc.Resolved); r != nil {
				listed(r, CodeService, fmt.Sprintf("loaded service %s runs it (spec ident %s)", svc.Name, svc.Ident))
			}
			continue
		}
		cands := append([]pkgstore.Ident{svc.Resolved}, svc.Ambiguous...)
		names := make([]string, len(cands))
		for i, c := range cands {
			names[i] = c.String()
		}
		for _, c := range cands {
			if r := inv.Installed(c); r != nil {
				listed(r, CodeServiceMaybe, fmt.Sprintf("loaded service %s may run it (spec ident %s): Habitat's pick among %s depends on directory order, as it cannot order their versions consistently or deems them equal",
					svc.Name, svc.Ident, strings.Join(names, ", ")))
			}
		}
	}
	for _, bl := range inv.Binlinks {
		for _, id := range bl.Covers {
			if r := inv.Installed(id); r != nil {
				listed(r, CodeBinlink, coverText(bl))
			}
		}
		if !bl.InStore || bl.Release.Origin == "" {
			continue
		}
		if r := inv.Installed(bl.Release); r != nil {
			listed(r, CodeBinlink, fmt.Sprintf("binlink %s points into it", bl.Path))
		}
	}
	for _, f := range p.Found {
		for _, root := range f.Roots {
			if r := inv.Installed(root.Ident); r != nil {
				listed(r, root.Code, root.Text)
			}
		}
	}
	ix.wait = p.indexInstalls(listed)
	p.InstallWait = ix.wait
	for _, o := range inv.Opaque {
		for _, d := range o.Deps {
			if r := inv.Installed(d); r != nil {
				if ix.opaque == nil {
					ix.opaque = map[pkgstore.Ref][]Reason{}
				}
				ix.opaque[r.Ref] = append(ix.opaque[r.Ref], Reason{Code: CodeDamaged, Text: fmt.Sprintf("named by the DEPS or TDEPS of %s, which Habitat lists as installed but hab-gc cannot read as a release (see the problems); kept with everything it needs", o.Path)})
			}
		}
	}
	// A directory hab-gc cannot see into may hold releases Habitat lists.
	for _, pr := range inv.Problems {
		rel, inStore := strings.CutPrefix(pr.Path, pkgstore.StoreDir+"/")
		if !pr.Blocking || !inStore || strings.Count(rel, "/") > 3 ||
			(pr.Kind != pkgstore.ProblemSymlink && pr.Kind != pkgstore.ProblemUnreadable) {
			continue
		}
		ix.everyone = append(ix.everyone, Reason{Code: CodeDamaged, Text: fmt.Sprintf("hab-gc cannot see into %s (%s; see the problems), where Habitat may list releases that need it", pr.Path, pr.Kind)})
		break // one reason is enough
	}
	if why := depsUnknown(inv); why != "" {
		ix.everyone = append(ix.everyone, Reason{Code: CodeDamaged, Text: why})
	}
	for _, pr := range inv.Problems {
		if pr.Kind == pkgstore.ProblemIdent && pr.Release != "" {
			if ix.identProblems == nil {
				ix.identProblems = map[string][]string{}
			}
			ix.identProblems[pr.Release] = append(ix.identProblems[pr.Release], pr.Message)
		}
	}
	ix.mounts = p.indexMounts()
	return ix
}

// countRoots are the count's reasons for each of one package's releases.
func (p *Plan) countRoots(rels []*pkgstore.Release) [][]Reason {
	out := make([][]Reason, len(rels))
	if p.Policy.neverRemoved(rels[0].Ident) {
		for i, r := range rels {
			out[i] = []Reason{{CodeHabitat, fmt.Sprintf("release of %s, the hab command: Habitat never removes chef/hab, and neither does hab-gc unless self_keep_latest is set", pkgName(r.Ident))}}
		}
		return out
	}
	n, from := p.keepFor(rels[0].Ident)
	code, what := CodeLatest, ""
	if from != "" {
		what = ", by " + from
	}
	if IsHabitatPackage(rels[0].Ident) {
		code, what = CodeHabitat, ", Habitat's own package"
	}
	p.eachCounted(rels, n, func(i int, scope string, rank int) {
		out[i] = append(out[i], Reason{code, fmt.Sprintf("newest release of %s%s (%s of %d kept)", scope, what, humanize.Ordinal(rank), n)})
	})
	return out
}

// eachCounted calls keep for each of the package's newest n, then each of
// the newest n of every count scope (countScopes), with its rank.
func (p *Plan) eachCounted(rels []*pkgstore.Release, n int, keep func(i int, scope string, rank int)) {
	keepNewest := func(at []int, scope string) {
		for k := len(at) - 1; k >= 0 && k >= len(at)-n; k-- {
			keep(at[k], scope, len(at)-k)
		}
	}
	if n > 0 {
		scope := pkgName(rels[0].Ident)
		for i := len(rels) - 1; i >= 0 && i >= len(rels)-n; i-- {
			keep(i, scope, len(rels)-i)
		}
	}
	scopes := p.countScopes()
	if len(scopes) == 0 {
		return
	}
	done := map[pkgstore.Ident]bool{}
	for _, o := range scopes {
		if done[o] || !rels[0].Ident.Satisfies(o.Package()) {
			continue
		}
		done[o] = true
		var at []int
		for i, r := range rels {
			if r.Ident.Satisfies(o) {
				at = append(at, i)
			}
		}
		if len(at) > 0 {
			keepNewest(at, o.String())
		}
	}
}

// rootsOf are r's reasons to be a root: count, index, its own.
func (p *Plan) rootsOf(ix *rootIndex, r *pkgstore.Release, count []Reason) []Reason {
	out := count
	add := func(rs ...Reason) {
		if len(rs) > 0 {
			out = append(slices.Clip(out), rs...)
		}
	}
	add(ix.listed[r.Ref]...)
	if ix.wait != "" {
		add(Reason{CodeInstalling, ix.wait})
	}
	add(ix.opaque[r.Ref]...)
	add(ix.everyone...)
	for _, ex := range p.Policy.Excludes {
		ok, note := ex.match(r.Ident)
		if !ok {
			continue
		}
		text := "excluded by " + ex.describe()
		if note != "" {
			text += ": " + note
		}
		add(Reason{CodeExcluded, text})
	}
	if minAge := p.Policy.minAge(); minAge > 0 {
		// Young by either clock: a clock set ahead must not age a release.
		age := p.Now.Sub(r.InstalledAt())
		if age < minAge {
			add(Reason{CodeYoung, fmt.Sprintf("installed %s ago, less than the minimum age %s (an install or rollback may be in progress)", age.Round(time.Second), minAge)})
		} else if real := p.RealNow.Sub(r.InstalledAt()); !p.RealNow.IsZero() && real < minAge {
			add(Reason{CodeYoung, fmt.Sprintf("installed %s ago by the real clock (%s by the plan's, which is ahead), less than the minimum age %s (an install or rollback may be in progress)", real.Round(time.Second), age.Round(time.Second), minAge)})
		}
	}
	if r.Damaged {
		add(Reason{CodeDamaged, "its DEPS or TDEPS is damaged, so what it needs is not fully known; kept with everything its readable lines name"})
	}
	if len(ix.identProblems) > 0 {
		for _, msg := range ix.identProblems[r.Ident.String()] {
			add(Reason{CodeIdentProblem, "IDENT file: " + msg + "; kept until that is explained"})
		}
	}
	add(ix.mounts[r.Ref]...)
	if p.Policy.OnlySupervisorInstalled {
		switch by := p.Inventory.InstalledBy(r); by {
		case provenance.Supervisor:
		case provenance.Unknown:
			add(Reason{CodeNotSupervisor, "who installed it is unknown (before hab-gc watch recorded installs, or where the kernel could not tell), and only what the Supervisor installed is removed"})
		default:
			add(Reason{CodeNotSupervisor, fmt.Sprintf("installed by %s, not by the Supervisor (%s), and only what the Supervisor installed is removed", by, provenance.Supervisor)})
		}
	}
	return out
}

func coverText(bl pkgstore.Binlink) string {
	return fmt.Sprintf("binlink %s points at %s, a directory above the releases (Habitat's own binlinks point into one release), so every release below it is kept", bl.Path, bl.Under)
}

// startedRoots keeps what a started service's PID file shows it runs, or,
// when the file tells nothing, every release its spec allows.
func (p *Plan) startedRoots(svc pkgstore.Service, listed func(*pkgstore.Release, Code, string)) {
	inv := p.Inventory
	if svc.PIDProblem != "" {
		for _, r := range inv.Satisfying(svc.Ident) {
			listed(r, CodeService, fmt.Sprintf("loaded service %s may run it: its PID file %s tells nothing of which release runs (%s), so every release its spec ident %s allows is kept", svc.Name, svc.PIDFile, svc.PIDProblem, svc.Ident))
		}
		return
	}
	may := ""
	if len(svc.Runs) > 1 {
		may = "; Habitat's pick among several depends on directory order, so each is kept"
	}
	for _, id := range svc.Runs {
		if r := inv.Installed(id); r != nil {
			listed(r, CodeService, fmt.Sprintf("loaded service %s runs it: its PID file %s names live process %d, and this is the release its spec ident %s allows that the Supervisor picks among those installed before it wrote that file%s", svc.Name, svc.PIDFile, svc.PID, svc.Ident, may))
		}
	}
}

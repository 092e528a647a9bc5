package retention

import (
	"fmt"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/pkgstore"
)

func (p *Plan) findRoots() {
	pol, inv := p.Policy, p.Inventory
	p.eachPackage(func(rels []*pkgstore.Release) {
		n, from := p.keepFor(rels[0].Ident)
		code, what := CodeLatest, ""
		if from != "" {
			what = ", by " + from
		}
		if pol.neverRemoved(rels[0].Ident) {
			for _, r := range rels {
				p.addRoot(r.Ref, CodeHabitat, fmt.Sprintf("release of %s, the hab command: Habitat never removes chef/hab, and neither does hab-gc unless self_keep_latest is set", pkgName(r.Ident)))
			}
			return
		}
		if IsHabitatPackage(rels[0].Ident) {
			code, what = CodeHabitat, ", Habitat's own package"
		}
		keepNewest := func(rels []*pkgstore.Release, scope string) {
			for i := len(rels) - 1; i >= 0 && i >= len(rels)-n; i-- {
				rank := len(rels) - i
				p.addRoot(rels[i].Ref, code, fmt.Sprintf("newest release of %s%s (%s of %d kept)", scope, what, humanize.Ordinal(rank), n))
			}
		}
		keepNewest(rels, pkgName(rels[0].Ident))
		// An Only entry with a version keeps the newest N of that version,
		// as `hab pkg uninstall --keep-latest N ORIGIN/NAME/VERSION` does;
		// so does a loaded service's version-pinned spec with ServicesOnly
		// or NoDeps, as the Supervisor's uninstall_all_but_latest(spec.ident, N).
		done := map[pkgstore.Ident]bool{}
		for _, o := range p.countScopes() {
			if done[o] || !rels[0].Ident.Satisfies(o.Package()) {
				continue
			}
			done[o] = true
			var vrels []*pkgstore.Release
			for _, r := range rels {
				if r.Ident.Satisfies(o) {
					vrels = append(vrels, r)
				}
			}
			if len(vrels) > 0 {
				keepNewest(vrels, o.String())
			}
		}
	})
	for _, svc := range inv.Services {
		if !svc.Installed {
			continue
		}
		if len(svc.Ambiguous) == 0 {
			if r := inv.Installed(svc.Resolved); r != nil {
				p.addRoot(r.Ref, CodeService, fmt.Sprintf("loaded service %s runs it (spec ident %s)", svc.Name, svc.Ident))
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
				p.addRoot(r.Ref, CodeServiceMaybe, fmt.Sprintf("loaded service %s may run it (spec ident %s): Habitat's pick among %s depends on directory order, as it cannot order their versions consistently or deems them equal",
					svc.Name, svc.Ident, strings.Join(names, ", ")))
			}
		}
	}
	for _, bl := range inv.Binlinks {
		for _, id := range bl.Covers {
			if r := inv.Installed(id); r != nil {
				p.addRoot(r.Ref, CodeBinlink, coverText(bl))
			}
		}
		if !bl.InStore || bl.Release.Origin == "" {
			continue
		}
		if r := inv.Installed(bl.Release); r != nil {
			p.addRoot(r.Ref, CodeBinlink, fmt.Sprintf("binlink %s points into it", bl.Path))
		}
	}
	for _, f := range p.Found {
		for _, root := range f.Roots {
			if r := inv.Installed(root.Ident); r != nil {
				p.addRoot(r.Ref, root.Code, root.Text)
			}
		}
	}
	p.installRoots()
	for _, o := range inv.Opaque {
		for _, d := range o.Deps {
			if r := inv.Installed(d); r != nil {
				p.addRoot(r.Ref, CodeDamaged, fmt.Sprintf("named by the DEPS or TDEPS of %s, which Habitat lists as installed but hab-gc cannot read as a release (see the problems); kept with everything it needs", o.Path))
			}
		}
	}
	// An origin, name, version or release directory hab-gc cannot see
	// into (a symlink, which Habitat follows; one it cannot read) may hold
	// releases Habitat lists, whose DEPS may name any release: with
	// AllowDamaged, nothing is removed while it is there.
	for _, pr := range inv.Problems {
		rel, inStore := strings.CutPrefix(pr.Path, pkgstore.StoreDir+"/")
		if !pr.Blocking || !inStore || strings.Count(rel, "/") > 3 ||
			(pr.Kind != pkgstore.ProblemSymlink && pr.Kind != pkgstore.ProblemUnreadable) {
			continue
		}
		for _, r := range inv.Releases {
			p.addRoot(r.Ref, CodeDamaged, fmt.Sprintf("hab-gc cannot see into %s (%s; see the problems), where Habitat may list releases that need it", pr.Path, pr.Kind))
		}
		break // one reason is enough
	}
	// A release (or a directory Habitat lists as one) whose needs cannot
	// be read at all may need any release: with AllowDamaged, nothing is
	// removed while it is there.
	if why := depsUnknown(inv); why != "" {
		for _, r := range inv.Releases {
			p.addRoot(r.Ref, CodeDamaged, why)
		}
	}
	identProblems := map[string][]string{}
	for _, pr := range inv.Problems {
		if pr.Kind == pkgstore.ProblemIdent && pr.Release != "" {
			identProblems[pr.Release] = append(identProblems[pr.Release], pr.Message)
		}
	}
	minAge := pol.minAge()
	for _, r := range inv.Releases {
		for _, ex := range pol.Excludes {
			ok, note := ex.match(r.Ident)
			if !ok {
				continue
			}
			text := "excluded by " + ex.describe()
			if note != "" {
				text += ": " + note
			}
			p.addRoot(r.Ref, CodeExcluded, text)
		}
		if minAge > 0 {
			// Young by either clock: a plan's clock set ahead (a
			// rehearsal, a wrong argument) must not make a fresh install
			// look old.
			age := p.Now.Sub(r.InstalledAt())
			if age < minAge {
				p.addRoot(r.Ref, CodeYoung, fmt.Sprintf("installed %s ago, less than the minimum age %s (an install or rollback may be in progress)", age.Round(time.Second), minAge))
			} else if real := p.RealNow.Sub(r.InstalledAt()); !p.RealNow.IsZero() && real < minAge {
				p.addRoot(r.Ref, CodeYoung, fmt.Sprintf("installed %s ago by the real clock (%s by the plan's, which is ahead), less than the minimum age %s (an install or rollback may be in progress)", real.Round(time.Second), age.Round(time.Second), minAge))
			}
		}
		if r.Damaged {
			p.addRoot(r.Ref, CodeDamaged, "its DEPS or TDEPS is damaged, so what it needs is not fully known; kept with everything its readable lines name")
		}
		for _, msg := range identProblems[r.Ident.String()] {
			p.addRoot(r.Ref, CodeIdentProblem, "IDENT file: "+msg+"; kept until that is explained")
		}
	}
	p.mountRoots()
}

// coverText says why a release below the directory a binlink points at
// (not a release: see pkgstore.Binlink.Under) is kept.
func coverText(bl pkgstore.Binlink) string {
	return fmt.Sprintf("binlink %s points at %s, a directory above the releases (Habitat's own binlinks point into one release), so every release below it is kept", bl.Path, bl.Under)
}

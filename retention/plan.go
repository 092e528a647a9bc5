package retention

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrNoInventory is returned by Compute for a nil inventory.
var ErrNoInventory = errors.New("no inventory: read one with pkgstore.Store.Scan")

// Action is what the plan does with a release.
type Action string

const (
	Keep   Action = "keep"
	Remove Action = "remove"
)

// Reason is one cause of a decision: a stable code and a sentence.
type Reason struct {
	Code Code   `json:"code"`
	Text string `json:"text"`
}

// Decision is the plan for one installed release.
type Decision struct {
	Release *pkgstore.Release
	Action  Action
	Reasons []Reason
}

// Plan is, for every installed release of an inventory, keep or remove
// with reasons; the same inputs give the same plan.
type Plan struct {
	Policy Policy
	// Now is the caller's clock: MinAge is measured with it, and Apply
	// revalidates with it.
	Now time.Time
	// RealNow is the real clock as PlanStore made the plan (zero from
	// Compute): a release young by either clock is kept.
	RealNow   time.Time
	Inventory *pkgstore.Inventory
	Graph     *depgraph.Graph
	// Found is what the RootFinders found when the plan was made.
	Found []Found
	// Decisions are in inventory order (origin, name, oldest first).
	Decisions []Decision
	Warnings  []Warning
	Pins      []Pin
	// InstallWait, when set, is why every removal waits for an install
	// in progress whose needs the store does not show yet.
	InstallWait string
	InstallDirs []InstallDir

	// decisionAt[ref] indexes Decisions, -1 for no installed release (a
	// map of 100,000 entries took 2 MB).
	decisionAt []int32
	reach      *depgraph.Reach
	rootOf     map[pkgstore.Ref][]Reason
	freed      map[pkgstore.Ref]string // removed only because Only's removals freed them
	unused     map[pkgstore.Ref]bool   // store-wide FreeDeps: count taken away (freed.go)
	probeLater bool                    // PlanToApply
	services   []pkgstore.Ident        // the loaded services' spec idents
	// only and counts are spelled as the store spells them (casefold.go).
	only   []pkgstore.Ident
	counts []spelledCount
}

// Compute makes the plan from an inventory, a policy, what the
// RootFinders found (Policy.FindRoots) and now, reading nothing; hooks
// says whether a release ships an uninstall hook (nil: unknown). A store
// with blocking problems fails with a *DamagedError unless AllowDamaged.
func Compute(inv *pkgstore.Inventory, pol Policy, found []Found, now time.Time, hooks func(pkgstore.Ident) bool) (*Plan, error) {
	return computeAt(inv, nil, pol, now, time.Time{}, hooks, found)
}

// computeAt is Compute with the real clock (zero: none) and, when not nil,
// inv's graph already built.
func computeAt(inv *pkgstore.Inventory, g *depgraph.Graph, pol Policy, now, realNow time.Time, hooks func(pkgstore.Ident) bool, found []Found) (*Plan, error) {
	if inv == nil {
		return nil, ErrNoInventory
	}
	if err := pol.Validate(); err != nil {
		return nil, err
	}
	if bl := inv.Blocking(); len(bl) > 0 && !pol.AllowDamaged {
		return nil, &DamagedError{Problems: bl}
	}
	if g == nil || g.Inventory() != inv {
		g = depgraph.New(inv)
	}
	p := &Plan{
		Policy: pol, Now: now, RealNow: realNow, Inventory: inv, Graph: g, Found: found,
		decisionAt: make([]int32, inv.NumRefs()), rootOf: map[pkgstore.Ref][]Reason{},
		services: serviceIdents(inv), only: spellingsOf(storeSpellings(inv, pol.Only)), counts: spellCounts(inv, pol),
	}
	for i := range p.decisionAt {
		p.decisionAt[i] = -1
	}
	p.Decisions = make([]Decision, len(inv.Releases))
	for i, r := range inv.Releases {
		p.Decisions[i] = Decision{Release: r}
		p.decisionAt[r.Ref] = int32(i)
	}
	p.findRoots()
	p.Pins, p.Warnings = p.policyWarnings()
	if w, ok := clockWarning(now, realNow); ok {
		p.Warnings = append(p.Warnings, w)
	}
	roots := p.rootList()
	p.reach = p.Graph.Reach(roots)
	if p.freesDeps() {
		p.freeDeps()
	}

	if !pol.IgnoreUninstallHooks && hooks != nil {
		var extra []pkgstore.Ref
		p.eachPackage(func(rels []*pkgstore.Release) {
			for _, r := range rels {
				if p.reach.Reached(r.Ref) {
					return
				}
			}
			for i := len(rels) - 1; i >= 0; i-- {
				if hooks(rels[i].Ident) {
					p.addRoot(rels[i].Ref, CodeUninstall, "last release of "+pkgName(rels[i].Ident)+" and it ships hooks/uninstall, which hab-gc does not run")
					extra = append(extra, rels[i].Ref)
					return
				}
			}
		})
		p.reach.Extend(extra)
	}

	if p.limited() {
		p.applyScope()
	}
	p.decide()
	p.InstallDirs = installDirs(context.Background(), inv, found, false)
	return p, nil
}

func pkgName(id pkgstore.Ident) string { return id.Origin + "/" + id.Name }

func (p *Plan) addRoot(r pkgstore.Ref, code Code, text string) {
	p.rootOf[r] = append(p.rootOf[r], Reason{Code: code, Text: text})
}

// rootList returns the roots in inventory order (deterministic chains).
func (p *Plan) rootList() []pkgstore.Ref {
	var roots []pkgstore.Ref
	for _, r := range p.Inventory.Releases {
		if len(p.rootOf[r.Ref]) > 0 {
			roots = append(roots, r.Ref)
		}
	}
	return roots
}

// eachPackage calls f with the releases of each origin/name, oldest first.
func (p *Plan) eachPackage(f func([]*pkgstore.Release)) {
	rels := p.Inventory.Releases
	for lo := 0; lo < len(rels); {
		hi := lo + 1
		for hi < len(rels) && rels[hi].Ident.Origin == rels[lo].Ident.Origin && rels[hi].Ident.Name == rels[lo].Ident.Name {
			hi++
		}
		f(rels[lo:hi])
		lo = hi
	}
}

func (p *Plan) decide() {
	// Releases removed for their age share one reason a package (their
	// texts were a tenth of a large plan's memory).
	var oldOf string
	var oldReasons []Reason
	scopes := p.countScopes()
	for i := range p.Decisions {
		d := &p.Decisions[i]
		r := d.Release
		if p.reach.Reached(r.Ref) {
			d.Action = Keep
			if !p.reach.IsRoot(r.Ref) {
				d.Reasons = append(d.Reasons, p.rootOf[r.Ref]...)
				d.Reasons = append(d.Reasons, p.dependencyReason(r.Ref))
			} else {
				d.Reasons = slices.Clip(p.rootOf[r.Ref]) // shared; clipped, so an append copies
			}
			continue
		}
		d.Action = Remove
		if text, ok := p.freed[r.Ref]; ok {
			d.Reasons = append(d.Reasons, Reason{Code: CodeFreed, Text: text})
			continue
		}
		if p.unused[r.Ref] {
			d.Reasons = append(d.Reasons, Reason{Code: CodeUnusedDep,
				Text: fmt.Sprintf("an older release of %s, which other packages need: free-deps keeps such a release by need alone, and no kept release needs it", pkgName(r.Ident))})
			continue
		}
		scope := pkgName(r.Ident)
		for _, o := range scopes {
			if r.Ident.Satisfies(o) {
				scope = o.String()
				break
			}
		}
		if oldReasons == nil || scope != oldOf {
			n, from := p.keepFor(r.Ident)
			if from != "" {
				from = " (" + from + ")"
			}
			oldOf = scope
			oldReasons = []Reason{{Code: CodeOld,
				Text: fmt.Sprintf("not among the newest %d of %s%s, not protected, and no kept release needs it", n, scope, from)}}
		}
		d.Reasons = oldReasons // shared, and full: an append copies
	}
}

// dependencyReason names the chain from the root that keeps r.
func (p *Plan) dependencyReason(r pkgstore.Ref) Reason {
	chain := p.reach.Chain(r)
	inv := p.Inventory
	root := chain[0]
	var via []string
	for i := len(chain) - 2; i >= 1; i-- {
		via = append(via, inv.Ident(chain[i]).String())
	}
	var rootWhy []string
	for _, rr := range p.rootOf[root] {
		rootWhy = append(rootWhy, rr.Text)
	}
	text := "dependency of "
	if len(via) > 0 {
		text += strings.Join(via, ", needed by ") + ", needed by "
	}
	text += fmt.Sprintf("%s (%s)", inv.Ident(root), strings.Join(rootWhy, "; "))
	return Reason{Code: CodeDependency, Text: text}
}

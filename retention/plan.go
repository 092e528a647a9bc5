package retention

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrNoInventory is returned by Compute and ComputeFound for a nil
// inventory.
var ErrNoInventory = errors.New("no inventory: read one with pkgstore.Store.Scan")

// ErrDamaged is wrapped by the error Compute returns when the store has
// blocking problems and the policy does not allow proceeding.
var ErrDamaged = errors.New("store is damaged: refusing to remove anything")

// DamagedError lists the blocking problems behind a refusal.
type DamagedError struct {
	Problems []pkgstore.Problem
}

func (e *DamagedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v (%d blocking problem(s); fix them or allow damaged stores explicitly):", ErrDamaged, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

func (e *DamagedError) Unwrap() error { return ErrDamaged }

// Action is what the plan does with a release.
type Action string

const (
	Keep   Action = "keep"
	Remove Action = "remove"
)

// Code is the stable, machine-readable part of a Reason.
type Code string

// Reason codes. Keep codes first, then remove codes.
const (
	CodeLatest       Code = "latest"         // among the newest N of its origin/name
	CodeHabitat      Code = "habitat-self"   // among the newest releases of Habitat's own packages
	CodeService      Code = "loaded-service" // a loaded service runs it
	CodeServiceMaybe Code = "loaded-service-ambiguous"
	CodeInUse        Code = "in-use"              // a running process uses it (a RootFinder's root)
	CodeBinlink      Code = "binlink"             // a binlink points into it
	CodeExcluded     Code = "excluded"            // an exclude (pin) matches it
	CodeYoung        Code = "too-young"           // installed less than MinAge ago
	CodeDamaged      Code = "damaged"             // its metadata is damaged (AllowDamaged)
	CodeIdentProblem Code = "ident-problem"       // IDENT disagrees with the path or is missing
	CodeUninstall    Code = "uninstall-hook"      // last release of a package with an uninstall hook
	CodeOutsideOnly  Code = "outside-only"        // not within the Only set
	CodeDependency   Code = "dependency"          // needed by a kept release
	CodeInstalling   Code = "install-in-progress" // an install in progress needs it, or removals wait for one to end
	// CodeNoDeps: outside a limited purge's packages, needed only by its
	// removed releases, and kept because NoDeps asks (hab pkg uninstall
	// --no-deps).
	CodeNoDeps Code = "no-deps"
	CodeOld    Code = "superseded" // older than the newest N, and nothing kept needs it
	// CodeFreed: outside the Only packages, needed only by their removed
	// releases (whose last dependents they were), and by nothing kept.
	CodeFreed Code = "freed-by-only"
	// CodeUnusedDep: store-wide with FreeDeps, an older release of a
	// package other packages need, which no kept release needs.
	CodeUnusedDep Code = "unused-dependency"
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

// Plan decides, for every installed release of an inventory, keep or
// remove, each with its reasons. It is deterministic: the same inventory,
// policy and time give the same plan, in inventory order.
type Plan struct {
	Policy Policy
	// Now is the plan's clock reading, the caller's: MinAge is measured
	// with it, and Apply revalidates with it.
	Now time.Time
	// RealNow, when set, is the real clock's reading as the plan was made
	// (PlanStore reads it; Compute reads no clock and leaves it zero). A
	// release installed less than MinAge before either clock is kept as
	// too young, and a Now more than ClockAheadWarning ahead of RealNow is
	// warned about (WarnClockAhead). Apply judges by its own clock
	// (ApplyOptions.Now) again.
	RealNow   time.Time
	Inventory *pkgstore.Inventory
	Graph     *depgraph.Graph
	// Found is what the policy's RootFinders found when the plan was made.
	Found []Found
	// Decisions are in inventory order (origin, name, oldest first).
	Decisions []Decision
	// Warnings are about the policy as applied to this store: pins and
	// Only entries that match no installed release (often a typo), and
	// semver pins that could not judge a version. Policy order.
	Warnings []Warning
	// Pins are the policy's excludes, each with its source and how many
	// installed releases it matches. Policy order.
	Pins []Pin
	// InstallWait, when not empty, says why every removal waits: an
	// install in progress (see pkgstore.Installing) whose needs the store
	// does not show yet. A later run, once it has ended, removes what
	// this one kept.
	InstallWait string

	// decisionAt[ref] is the index in Decisions of ref's release, -1 for
	// a Ref that is not an installed release (a slice: a map of 100,000
	// entries took 2 MB).
	decisionAt []int32
	reach      *depgraph.Reach
	rootOf     map[pkgstore.Ref][]Reason
	freed      map[pkgstore.Ref]string // removed only because Only's removals freed them
	unused     map[pkgstore.Ref]bool   // store-wide FreeDeps: count taken away (freed.go)
	// services are the loaded services' spec idents (ServicesOnly, NoDeps).
	services []pkgstore.Ident
}

// HookFunc reports whether a release ships an uninstall hook
// (pkgstore.Store.HasUninstallHook). Compute uses it for the last releases
// of packages that would otherwise go entirely; nil means "unknown", and
// the apply step checks again on disk.
type HookFunc func(pkgstore.Ident) bool

// Compute makes the plan. now is the clock reading used for MinAge; it is
// never read inside. It fails with a *DamagedError (errors.Is ErrDamaged)
// when the store has blocking problems and the policy does not allow them,
// and with ErrInvalidPolicy for bad values.
func Compute(inv *pkgstore.Inventory, pol Policy, now time.Time, hooks HookFunc) (*Plan, error) {
	return ComputeFound(inv, pol, now, hooks, nil)
}

// ComputeFound is Compute with what the policy's RootFinders found
// (Policy.FindRoots): every installed release a found Root names is a
// root of the plan, with that Root's code and text. It reads nothing
// itself.
func ComputeFound(inv *pkgstore.Inventory, pol Policy, now time.Time, hooks HookFunc, found []Found) (*Plan, error) {
	return computeAt(inv, nil, pol, now, time.Time{}, hooks, found)
}

// computeAt is ComputeFound with the real clock's reading (Plan.RealNow;
// zero for none) and, when g is not nil, the graph of inv already built
// (a plan made again after a probe reuses the first one's).
func computeAt(inv *pkgstore.Inventory, g *depgraph.Graph, pol Policy, now, realNow time.Time, hooks HookFunc, found []Found) (*Plan, error) {
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
		services: serviceIdents(inv),
	}
	p.Decisions = make([]Decision, len(inv.Releases))
	for i := range p.decisionAt {
		p.decisionAt[i] = -1
	}
	for i, r := range inv.Releases {
		p.Decisions[i] = Decision{Release: r}
		p.decisionAt[r.Ref] = int32(i)
	}
	p.findRoots()
	p.Pins, p.Warnings = policyWarnings(inv, pol)
	if w, ok := clockWarning(now, realNow); ok {
		p.Warnings = append(p.Warnings, w)
	}
	roots := p.rootList()
	p.reach = p.Graph.Reach(roots)
	if p.freesDeps() {
		p.freeDeps()
	}

	// A package about to lose its last release keeps one when it ships an
	// uninstall hook, which hab-gc does not run.
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
	return p, nil
}

func pkgName(id pkgstore.Ident) string { return id.Origin + "/" + id.Name }

func (p *Plan) addRoot(r pkgstore.Ref, code Code, text string) {
	p.rootOf[r] = append(p.rootOf[r], Reason{Code: code, Text: text})
}

// rootList returns the roots in inventory order, for deterministic chains.
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

func (p *Plan) findRoots() {
	pol, inv := p.Policy, p.Inventory
	p.eachPackage(func(rels []*pkgstore.Release) {
		n, from := pol.keepFor(rels[0].Ident)
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

// depsUnknown says why every release is kept when an installed release,
// or a directory Habitat lists as one, has DEPS and TDEPS from which
// nothing can be known of what it needs (pkgstore.Release.DepsUnknown);
// "" when there is none.
func depsUnknown(inv *pkgstore.Inventory) string {
	what := ""
	for _, r := range inv.Releases {
		if r.DepsUnknown {
			what = r.Ident.String()
			break
		}
	}
	if what == "" {
		for _, o := range inv.Opaque {
			if o.DepsUnknown {
				what = o.Path
				break
			}
		}
	}
	if what == "" {
		return ""
	}
	return fmt.Sprintf("what %s needs cannot be read (its DEPS or TDEPS is not a file hab-gc can read, and the other names nothing; see the problems), so it may need any release: none is removed while it is installed", what)
}

func (p *Plan) decide() {
	// The releases of a package are next to each other in inventory
	// order, and those removed for their age share one reason: made once
	// a package, not once a release (issue 35: 70% of a large
	// store's releases are removed so, and their texts were 10% of the
	// plan's memory).
	var oldOf pkgstore.Ident
	var oldReasons []Reason
	for i := range p.Decisions {
		d := &p.Decisions[i]
		r := d.Release
		if p.reach.Reached(r.Ref) {
			d.Action = Keep
			if !p.reach.IsRoot(r.Ref) {
				d.Reasons = append(d.Reasons, p.rootOf[r.Ref]...)
				d.Reasons = append(d.Reasons, p.dependencyReason(r.Ref))
			} else {
				// A root's reasons are the plan's own: share them
				// (clipped, so that an append by a caller copies).
				d.Reasons = slices.Clip(p.rootOf[r.Ref])
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
		if oldReasons == nil || r.Ident.Origin != oldOf.Origin || r.Ident.Name != oldOf.Name {
			n, from := p.Policy.keepFor(r.Ident)
			if from != "" {
				from = " (" + from + ")"
			}
			oldOf = r.Ident
			oldReasons = []Reason{{Code: CodeOld,
				Text: fmt.Sprintf("not among the newest %d of %s%s, not protected, and no kept release needs it", n, pkgName(r.Ident), from)}}
		}
		d.Reasons = oldReasons // shared, and full: an append copies
	}
}

// dependencyReason names the chain that keeps a dependency: the release
// that needs it and, through it, the root that keeps that one.
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

// Removals returns the decisions to remove, in plan order.
func (p *Plan) Removals() []Decision { return p.filter(Remove) }

// Keeps returns the decisions to keep, in plan order.
func (p *Plan) Keeps() []Decision { return p.filter(Keep) }

func (p *Plan) filter(a Action) []Decision {
	var out []Decision
	for _, d := range p.Decisions {
		if d.Action == a {
			out = append(out, d)
		}
	}
	return out
}

// ReclaimableBytes sums the sizes of the releases to remove; it is -1 when
// the scan did not measure sizes.
func (p *Plan) ReclaimableBytes() int64 {
	var total int64
	for _, d := range p.Decisions {
		if d.Action == Remove {
			if d.Release.Size < 0 {
				return -1
			}
			total += d.Release.Size
		}
	}
	return total
}

// Decision returns the decision for an installed release.
func (p *Plan) Decision(id pkgstore.Ident) (Decision, bool) {
	r, ok := p.Inventory.Lookup(id)
	if !ok {
		return Decision{}, false
	}
	if int(r) >= len(p.decisionAt) || p.decisionAt[r] < 0 {
		return Decision{}, false
	}
	return p.Decisions[p.decisionAt[r]], true
}

// Explanation answers Why.
type Explanation struct {
	Decision Decision
	// Chain runs from the root that keeps the release to the release
	// itself (just the release when it is a root); nil for a removal.
	Chain []pkgstore.Ident
	// RootReasons are why the first release of Chain is kept.
	RootReasons []Reason
}

// ErrNotInstalled is returned by Why for an ident that is not installed.
var ErrNotInstalled = errors.New("not an installed release")

// Why explains the decision for id: the chain that keeps it, or its
// removal reasons. A partial ident (origin/name or origin/name/version) is
// resolved to the newest installed release that satisfies it.
func (p *Plan) Why(id pkgstore.Ident) (Explanation, error) {
	if !id.FullyQualified() {
		r := p.Inventory.Latest(id)
		if r == nil {
			return Explanation{}, fmt.Errorf("%s: %w", id, ErrNotInstalled)
		}
		id = r.Ident
	}
	d, ok := p.Decision(id)
	if !ok {
		return Explanation{}, fmt.Errorf("%s: %w", id, ErrNotInstalled)
	}
	ex := Explanation{Decision: d}
	if d.Action == Keep {
		for _, r := range p.reach.Chain(d.Release.Ref) {
			ex.Chain = append(ex.Chain, p.Inventory.Ident(r))
		}
		root, _ := p.Inventory.Lookup(ex.Chain[0])
		ex.RootReasons = p.rootOf[root]
	}
	return ex, nil
}

// installRoots keeps what installs in progress need (see
// pkgstore.Installing): every installed release an install directory or a
// fresh archive in the artifact cache names, and, while any install
// directory is active, a download is in progress or an archive whose
// release is not installed came into the cache within the install window,
// every release. Habitat fetches and verifies all the missing
// dependencies of a package, then installs each in its own install
// directory before it makes the package's own, and the package's archive
// may have been in the cache for days: what that package found installed
// ("Using") shows nowhere until its own install directory exists. So no
// release is removed while an install is running.
func (p *Plan) installRoots() {
	inv := p.Inventory
	// Those a finder saw first: a process holding an install's files open
	// is the most telling reason.
	all := installsOf(inv, p.Found)
	for _, in := range all {
		what := "the install in progress at " + installPath(in)
		if in.Release.Origin != "" {
			what = "the install in progress of " + in.Release.String() + " at " + installPath(in)
		}
		if in.By != "" {
			what += " (" + in.By + ")"
		}
		for _, d := range in.Deps {
			if r := inv.Installed(d); r != nil {
				p.addRoot(r.Ref, CodeInstalling, "needed by "+what+" (read from "+in.From+")")
			}
		}
	}
	for _, in := range all {
		if !in.Active {
			continue
		}
		why := waitWhy(in)
		p.InstallWait = why
		for _, r := range inv.Releases {
			p.addRoot(r.Ref, CodeInstalling, why)
		}
		return // one reason is enough
	}
}

// installsOf are the installs in progress the finders saw (first) and
// those of the inventory, each once: one a process holds open is listed
// as the finder saw it.
func installsOf(inv *pkgstore.Inventory, found []Found) []pkgstore.Installing {
	held := foundInstalls(found)
	seen := map[string]bool{}
	for _, in := range held {
		seen[in.Path] = true
	}
	all := slices.Clip(held)
	for _, in := range slices.Concat(inv.Installing, inv.Fetched) {
		if !seen[in.Path] {
			all = append(all, in)
		}
	}
	return all
}

// waitWhy says why removals wait for an active install.
func waitWhy(in pkgstore.Installing) string {
	changed := in.Changed.UTC().Format(time.RFC3339)
	switch {
	case in.By != "":
		return heldWhy(in)
	case !in.Known:
		return fmt.Sprintf("removals wait for the install in progress at %s (changed %s) to end: what it needs cannot be read yet (%s)",
			installPath(in), changed, in.From)
	case in.Download:
		return fmt.Sprintf("removals wait for the download in progress at %s (changed %s) to end: Habitat downloads a package's missing dependencies before it unpacks any, and the package may use releases it found installed",
			installPath(in), changed)
	case strings.HasPrefix(in.Path, pkgstore.ArtifactCacheDir+"/"):
		return fmt.Sprintf("removals wait for the install of %s, whose archive came into the cache at %s (changed %s): Habitat verifies a fetched archive before it unpacks it, and the package it may be installing it for uses releases it found installed, which no archive names",
			in.Release, installPath(in), changed)
	default:
		return fmt.Sprintf("removals wait for the install in progress at %s (changed %s) to end: Habitat may be installing it for a package that uses releases it found installed",
			installPath(in), changed)
	}
}

// heldWhy says why removals wait for an install a process shows (By set),
// "" for one only the store's files show.
func heldWhy(in pkgstore.Installing) string {
	switch {
	case in.By == "":
		return ""
	case in.Path == "":
		return fmt.Sprintf("removals wait for the install in progress to end: %s (Habitat verifies and installs a package's dependencies before its own install directory appears, and between the opens of a cached archive nothing else shows it)", in.By)
	case !in.Known:
		return fmt.Sprintf("removals wait for the install in progress at %s (%s) to end: what it needs cannot be read (%s)",
			installPath(in), in.By, in.From)
	case strings.HasPrefix(in.Path, pkgstore.ArtifactCacheDir+"/"):
		return fmt.Sprintf("removals wait for the install of %s to end: %s (Habitat reads and verifies a cached archive before it unpacks it, and the package it installs it for uses releases it found installed, which no archive names)",
			in.Release, in.By)
	default:
		return fmt.Sprintf("removals wait for the install in progress at %s to end: %s", installPath(in), in.By)
	}
}

// installPath is an Installing's path relative to the FS root.
func installPath(in pkgstore.Installing) string {
	if strings.HasPrefix(in.Path, pkgstore.ArtifactCacheDir+"/") {
		return in.Path
	}
	return pkgstore.StoreDir + "/" + in.Path
}

// coverText says why a release below the directory a binlink points at
// (not a release: see pkgstore.Binlink.Under) is kept.
func coverText(bl pkgstore.Binlink) string {
	return fmt.Sprintf("binlink %s points at %s, a directory above the releases (Habitat's own binlinks point into one release), so every release below it is kept", bl.Path, bl.Under)
}

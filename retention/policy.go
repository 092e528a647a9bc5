package retention

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/runroots"
)

// ErrInvalidPolicy is wrapped by errors about a policy's values.
var ErrInvalidPolicy = errors.New("invalid retention policy")

// ErrEmptyPolicy refuses a policy without KeepLatest (the zero Policy):
// everything not protected would go. KeepNone says so on purpose.
var ErrEmptyPolicy = errors.New("the retention policy sets nothing (KeepLatest is unset; KeepNone keeps no release by count)")

// KeepNone is the KeepLatest that keeps no release by count.
const KeepNone = -1

// KeepCount is the KeepLatest for a user's count n: n, or KeepNone for 0.
func KeepCount(n int) int {
	if n == 0 {
		return KeepNone
	}
	return n
}

// DefaultMinAge is the zero MinAge. Habitat installs dependencies first,
// the package last: until it lands, a fresh dependency looks like garbage.
// An hour covers a large closure on a slow link, or a rollback.
const DefaultMinAge = time.Hour

// NoMinAge turns the age protection off ("none" in the CLI).
const NoMinAge time.Duration = -1

// Policy says what to keep. The zero value is refused (ErrEmptyPolicy);
// every other field's zero value is the safe default, every protection on.
// docs/configuration.md describes each setting as the CLI names it.
type Policy struct {
	// KeepLatest is how many of each origin/name's newest releases to keep
	// by count: 1 or more, or KeepNone.
	KeepLatest int
	// SelfKeepLatest counts Habitat's own packages (IsHabitatPackage).
	// Unset (0), no chef/hab release is ever removed, as Habitat's own
	// uninstall does, and the others keep KeepLatest, at least 1.
	SelfKeepLatest int
	Excludes       []Exclude
	// MinAge: 0 is DefaultMinAge, NoMinAge off.
	MinAge time.Duration
	// Only limits removals to these origin/names (or versions, which also
	// keep their own newest KeepLatest, as `hab pkg uninstall --keep-latest
	// N core/redis/6.2`) and the dependencies only their removed releases
	// needed (CodeFreed), unless a dependency is among its own package's
	// newest KeepLatest (FreeDeps frees it anyway, as Habitat does).
	Only []pkgstore.Ident
	// ServicesOnly limits removals to releases satisfying a loaded
	// service's spec ident, as the Supervisor's
	// uninstall_all_but_latest(spec.ident, N); it implies FreeDeps.
	ServicesOnly bool
	// NoDeps keeps what a limited purge frees (CodeNoDeps), as `hab pkg
	// uninstall --no-deps`, and makes a version-pinned spec keep its
	// version's newest KeepLatest.
	NoDeps bool
	// FreeDeps keeps a dependency by need alone, not by its package's
	// count (freed.go), as the Supervisor's purge does.
	FreeDeps bool
	// OnlySupervisorInstalled keeps every release the Supervisor did not
	// install, as hab-gc watch recorded it (CodeNotSupervisor).
	OnlySupervisorInstalled bool
	// KeepLatestFor overrides KeepLatest per package (not Habitat's own).
	KeepLatestFor []PackageCount
	// AllowDamaged plans despite blocking problems, keeping each damaged
	// release and what its readable lines name.
	AllowDamaged bool
	// IgnoreUninstallHooks lets the last release of a package that ships
	// hooks/uninstall go; hab-gc never runs hooks.
	IgnoreUninstallHooks bool
	// RuntimeRoots is how running processes are read (package runroots).
	RuntimeRoots runroots.Mode
	// RootFinders find more releases in use (the Supervisor's gateway),
	// asked after the processes by PlanStore and again twice by Apply.
	RootFinders []RootFinder
}

func (p Policy) finders() []RootFinder {
	if p.RuntimeRoots == runroots.ModeOff {
		return p.RootFinders
	}
	return append([]RootFinder{p.RuntimeRoots}, p.RootFinders...)
}

// Validate fails with ErrEmptyPolicy or ErrInvalidPolicy.
func (p Policy) Validate() error {
	if p.KeepLatest == 0 {
		return ErrEmptyPolicy
	}
	if p.KeepLatest < KeepNone {
		return fmt.Errorf("%w: keep-latest %d is negative", ErrInvalidPolicy, p.KeepLatest)
	}
	if p.SelfKeepLatest < 0 {
		return fmt.Errorf("%w: self-keep-latest %d is negative", ErrInvalidPolicy, p.SelfKeepLatest)
	}
	if p.MinAge < 0 && p.MinAge != NoMinAge {
		return fmt.Errorf("%w: min-age %s is negative", ErrInvalidPolicy, p.MinAge)
	}
	if p.RuntimeRoots < runroots.ModeOn || p.RuntimeRoots > runroots.ModeBestEffort {
		return fmt.Errorf("%w: runtime roots %s", ErrInvalidPolicy, p.RuntimeRoots)
	}
	for i, f := range p.RootFinders {
		if f == nil {
			return fmt.Errorf("%w: root finder %d is nil", ErrInvalidPolicy, i)
		}
	}
	for _, o := range p.Only {
		if o.Origin == "" || o.Name == "" {
			return fmt.Errorf("%w: only %q must name an origin/name (origin/name or origin/name/version)", ErrInvalidPolicy, o)
		}
		if o.Release != "" {
			return fmt.Errorf("%w: only %q must be origin/name or origin/name/version", ErrInvalidPolicy, o)
		}
	}
	return CheckPackageCounts(p.KeepLatestFor)
}

func (p Policy) minAge() time.Duration {
	switch {
	case p.MinAge == NoMinAge:
		return 0
	case p.MinAge == 0:
		return DefaultMinAge
	}
	return p.MinAge
}

func (p Policy) keep() int { return max(p.KeepLatest, 0) }

func (p Policy) selfKeep() int {
	n := p.SelfKeepLatest
	if n == 0 {
		n = p.keep()
	}
	return max(n, 1)
}

// String is the policy as the CLI's settings spell it, for logs.
func (p Policy) String() string {
	var b strings.Builder
	switch p.KeepLatest {
	case 0:
		b.WriteString("keep-latest=unset")
	case KeepNone:
		b.WriteString("keep-latest=none")
	default:
		fmt.Fprintf(&b, "keep-latest=%d", p.KeepLatest)
	}
	if p.SelfKeepLatest != 0 {
		fmt.Fprintf(&b, " self-keep-latest=%d", p.SelfKeepLatest)
	}
	switch p.MinAge {
	case 0:
		b.WriteString(" min-age=default")
	case NoMinAge:
		b.WriteString(" min-age=none")
	default:
		fmt.Fprintf(&b, " min-age=%s", p.MinAge)
	}
	for _, o := range p.Only {
		fmt.Fprintf(&b, " only=%s", o)
	}
	for _, c := range p.KeepLatestFor {
		fmt.Fprintf(&b, " keep-latest-for=%s", c)
	}
	for _, e := range p.Excludes {
		fmt.Fprintf(&b, " exclude=%q", e.Raw)
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{p.ServicesOnly, "services-only"}, {p.NoDeps, "no-deps"}, {p.FreeDeps, "free-deps"},
		{p.AllowDamaged, "allow-damaged"}, {p.IgnoreUninstallHooks, "ignore-uninstall-hooks"}} {
		if f.on {
			b.WriteString(" " + f.name)
		}
	}
	if p.RuntimeRoots != runroots.ModeOn {
		fmt.Fprintf(&b, " runtime-roots=%s", p.RuntimeRoots)
	}
	if len(p.RootFinders) > 0 {
		fmt.Fprintf(&b, " root-finders=%d", len(p.RootFinders))
	}
	return b.String()
}

// neverRemoved: `hab pkg uninstall` refuses to remove any chef/hab release.
func (p Policy) neverRemoved(id pkgstore.Ident) bool {
	return p.SelfKeepLatest == 0 && id.Name == "hab" && (id.Origin == "chef" || id.Origin == "core")
}

// IsHabitatPackage: chef/hab, hab-sup, hab-launcher, or their core/ forms.
func IsHabitatPackage(id pkgstore.Ident) bool {
	switch id.Origin + "/" + id.Name {
	case "chef/hab", "chef/hab-sup", "chef/hab-launcher", "core/hab", "core/hab-sup", "core/hab-launcher":
		return true
	}
	return false
}

// Exclude pins releases that satisfy Pattern and, with a Constraint, whose
// version satisfies it or is not semver (ParseExclude).
type Exclude struct {
	Pattern    pkgstore.Ident
	Constraint *semver.Constraints
	Raw        string
	// Source says where the pin came from ("flag --exclude"), for reasons
	// and history; may be empty.
	Source string
}

func (e Exclude) describe() string {
	if e.Source == "" {
		return fmt.Sprintf("%q", e.Raw)
	}
	return fmt.Sprintf("%q (%s)", e.Raw, e.Source)
}

// ParseExclude parses "core/redis", "core/redis/4.0.14" or
// "core/postgresql@>=11 <12" (Masterminds/semver). A version that is not
// semver (1.0.2k) is pinned too, and warned about (WarnNotSemver).
func ParseExclude(s string) (Exclude, error) {
	pat, cons, hasCons := strings.Cut(s, "@")
	id, err := pkgstore.ParseIdent(pat)
	if err != nil {
		return Exclude{}, fmt.Errorf("exclude %q: %w", s, err)
	}
	ex := Exclude{Pattern: id, Raw: s}
	if hasCons {
		if strings.TrimSpace(cons) == "" {
			return Exclude{}, fmt.Errorf("%w: exclude %q: empty version constraint after @", ErrInvalidPolicy, s)
		}
		c, err := semver.NewConstraint(cons)
		if err != nil {
			return Exclude{}, fmt.Errorf("%w: exclude %q: version constraint %q: %v", ErrInvalidPolicy, s, cons, err)
		}
		ex.Constraint = c
	}
	return ex, nil
}

// match reports whether e pins id; note says why a version the constraint
// cannot judge is pinned.
func (e Exclude) match(id pkgstore.Ident) (ok bool, note string) {
	if !id.SatisfiesAnyCase(e.Pattern) { // a pin protects: in any case where names are
		return false, ""
	}
	if e.Constraint == nil {
		return true, ""
	}
	v, err := semver.NewVersion(id.Version)
	if err != nil {
		return true, fmt.Sprintf("version %s is not semver, so the constraint cannot judge it: kept to be safe", id.Version)
	}
	return e.Constraint.Check(v), ""
}

func (e Exclude) String() string { return e.Raw }

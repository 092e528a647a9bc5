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

// ErrEmptyPolicy is returned (wrapped) by Validate, Compute and PlanStore
// for a policy that does not say how many releases to keep by count
// (KeepLatest 0, as in the zero Policy): without that, everything not
// protected would go. Keeping none by count is said with KeepNone.
var ErrEmptyPolicy = errors.New("the retention policy sets nothing (KeepLatest is unset; KeepNone keeps no release by count)")

// KeepNone is the KeepLatest that keeps no release by count: only the
// protections keep releases. The zero KeepLatest is "unset" and refused.
const KeepNone = -1

// KeepCount returns the KeepLatest that keeps the newest n releases by count:
// n itself, or KeepNone for 0. It is how a count read from a user (a
// flag, a config file) becomes a policy.
func KeepCount(n int) int {
	if n == 0 {
		return KeepNone
	}
	return n
}

// Zero values mean the same in the library, the CLI and configuration
// files: the zero duration (0 in Go, "0" or "0s" on the command line or in
// TOML) is the default, never "off"; off is said with a named constant in
// Go (NoMinAge, NoSettle, NoLockWait) and "none" in the CLI and TOML.

// DefaultMinAge is the default Policy.MinAge (the zero MinAge). Habitat installs a
// package's dependencies first, each renamed into place as soon as it is
// unpacked, and the package itself last: until the last one lands, a fresh
// dependency has no installed dependent and looks like garbage. An hour
// covers the download and unpacking of a large closure on a slow link, and
// an operator's rollback (`hab svc load` of an older release) in progress.
const DefaultMinAge = time.Hour

// NoMinAge turns the age protection off ("none" in the CLI and TOML).
const NoMinAge time.Duration = -1

// Policy says what to keep. The zero value is refused (ErrEmptyPolicy):
// a caller states KeepLatest on purpose, KeepNone included. Every other
// field's zero value is its safe default, with every protection in force.
type Policy struct {
	// KeepLatest is how many of the newest releases of each origin/name to
	// keep by count alone (Habitat's ordering): 1 or more, or KeepNone to
	// keep none by count (only the protections below keep releases). 0 is
	// unset, and refused (ErrEmptyPolicy).
	KeepLatest int
	// SelfKeepLatest is how many releases of Habitat's own packages
	// (chef/hab, chef/hab-sup, chef/hab-launcher and their core/
	// predecessors) to keep when set (1 or more). 0 means unset: then, as
	// Habitat's own uninstall does, no release of chef/hab (or core/hab) is
	// ever removed, and chef/hab-sup and chef/hab-launcher keep KeepLatest,
	// never fewer than 1. Setting it is the only way to let hab-gc remove
	// old chef/hab releases. SelfKeepCount reads a user's count (0
	// refused).
	SelfKeepLatest int
	// Excludes pin releases: every release matching one is kept. Default:
	// none.
	Excludes []Exclude
	// MinAge keeps releases installed less than this long ago. Default
	// (0): DefaultMinAge. NoMinAge turns it off.
	MinAge time.Duration
	// Only, when non-empty, limits removals to releases of these
	// origin/names, or origin/name/versions, and to the dependencies that
	// only their removed releases needed. Every protection still holds. An
	// entry with a version also keeps the newest KeepLatest releases of that
	// version, as `hab pkg uninstall --keep-latest N core/redis/6.2` does.
	// A dependency only the removed releases needed is freed (CodeFreed)
	// only when it is not among the newest KeepLatest of its own package:
	// unlike `hab pkg uninstall`, which removes it whatever its rank, a
	// package with one release (a tool installed by hand that an app also
	// needed) is never freed this way. For example, with KeepLatest 1 and
	// Only core/app, removing core/app/1/1 frees core/lib/1/1 when
	// core/lib/2/2 is installed, and keeps it when it is core/lib's only
	// release. With FreeDeps (or ServicesOnly) it is freed whatever its
	// rank, as the Supervisor's purge and `hab pkg uninstall` do. Where
	// the store folds case (Windows), an entry in another case than the
	// store's directories names the one Windows opens for it (CORE/Redis:
	// core\redis; casefold.go). Default: all packages.
	Only []pkgstore.Ident
	// ServicesOnly limits removals to the releases that satisfy a loaded
	// service's spec ident (Chef Automate's "conservative" mode): a spec
	// core/redis limits them to core/redis, core/redis/6.2.5 to that
	// version, whose newest KeepLatest (or KeepLatestFor) are kept, as the
	// Supervisor's uninstall_all_but_latest(spec.ident, N) does; other
	// versions are left alone. With Only too, removals satisfy both.
	// Dependencies that only the removed releases needed go too, whatever
	// their own package's count (it implies FreeDeps), unless NoDeps.
	// Default false: every package.
	ServicesOnly bool
	// NoDeps keeps the dependencies that a limited purge (Only,
	// ServicesOnly) frees (CodeNoDeps), as `hab pkg uninstall --no-deps`
	// does. It also makes a loaded service's version-pinned spec keep the
	// newest KeepLatest releases of that version (as ServicesOnly does);
	// store-wide, with no limit, it changes nothing else. Default false.
	NoDeps bool
	// FreeDeps applies the freed-dependency rule (see freed.go's
	// comment, and docs/configuration.md): a release kept only by its
	// package's count, and there only as a dependency, is kept by need
	// alone. In a limited plan (Only), every dependency that only the
	// removed releases needed goes (CodeFreed), whatever its own
	// package's count, as the Supervisor's purge does; store-wide, the
	// older releases of a package that other packages need go unless
	// something kept needs them, its newest staying by count. Every
	// other protection holds. ServicesOnly implies it (it is the
	// Supervisor's purge); NoDeps overrides it. Default false.
	FreeDeps bool
	// OnlySupervisorInstalled removes only releases the Supervisor
	// installed, as hab-gc watch recorded it (pkgstore's InstalledBy):
	// every other release, and one whose installer is unknown, is kept
	// (CodeNotSupervisor), with all it needs. Default false.
	OnlySupervisorInstalled bool
	// KeepLatestFor overrides KeepLatest for the packages it names (the
	// Supervisor-wide count with per-service overrides): each origin/name
	// once, not Habitat's own (SelfKeepLatest counts those). Where the
	// store folds case (Windows), an entry in another case counts for the
	// package Windows opens for it, unless another entry names that
	// package exactly (casefold.go). Default: none.
	KeepLatestFor []PackageCount
	// AllowDamaged plans despite blocking problems in the store (see
	// pkgstore.Problem.Blocking): each damaged release is then kept, with
	// everything its readable lines name. Default false: the plan is
	// refused with ErrDamaged.
	AllowDamaged bool
	// IgnoreUninstallHooks allows removing the last release of a package
	// that ships hooks/uninstall. hab-gc never runs hooks; by default
	// (false) it keeps such a release.
	IgnoreUninstallHooks bool
	// RuntimeRoots is how the running processes are read (package
	// runroots): every release one uses is kept, with everything it needs.
	// Default (runroots.ModeOn): they are read, and a run that cannot see
	// them all and cannot check the releases to remove another way fails
	// (runroots.ErrBlind). runroots.ModeBestEffort goes on with what it
	// could see; runroots.ModeOff reads no process.
	RuntimeRoots runroots.Mode
	// RootFinders find more releases in use that the store's files do not
	// show (the Supervisor's gateway), asked after the processes: each is
	// kept, with everything it needs. Compute does not call them;
	// PlanStore does, and Apply does again under the lock and just before
	// deleting. A failing finder makes both refuse (ErrRootsUnknown).
	// Default: none.
	RootFinders []RootFinder
}

// finders are the processes' finder (unless RuntimeRoots is off), then
// RootFinders.
func (p Policy) finders() []RootFinder {
	if p.RuntimeRoots == runroots.ModeOff {
		return p.RootFinders
	}
	return append([]RootFinder{p.RuntimeRoots}, p.RootFinders...)
}

// Validate checks the policy's values. A policy without KeepLatest fails
// with ErrEmptyPolicy; bad values with ErrInvalidPolicy.
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

// keep is how many releases of each package KeepLatest keeps by count.
func (p Policy) keep() int { return max(p.KeepLatest, 0) }

func (p Policy) selfKeep() int {
	n := p.SelfKeepLatest
	if n == 0 {
		n = p.keep()
	}
	return max(n, 1)
}

// String describes the policy in one line for logs, as the CLI's settings
// would spell it: "keep-latest=2 min-age=1h0m0s only=core/redis".
// Unset fields are left out, except KeepLatest.
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
	if p.ServicesOnly {
		b.WriteString(" services-only")
	}
	if p.NoDeps {
		b.WriteString(" no-deps")
	}
	if p.FreeDeps {
		b.WriteString(" free-deps")
	}
	if p.AllowDamaged {
		b.WriteString(" allow-damaged")
	}
	if p.IgnoreUninstallHooks {
		b.WriteString(" ignore-uninstall-hooks")
	}
	if p.RuntimeRoots != runroots.ModeOn {
		fmt.Fprintf(&b, " runtime-roots=%s", p.RuntimeRoots)
	}
	if len(p.RootFinders) > 0 {
		fmt.Fprintf(&b, " root-finders=%d", len(p.RootFinders))
	}
	return b.String()
}

// neverRemoved reports whether no release of id's package is removed
// under p: chef/hab (and core/hab) while SelfKeepLatest is unset. Habitat's
// `hab pkg uninstall` refuses to remove any chef/hab release.
func (p Policy) neverRemoved(id pkgstore.Ident) bool {
	return p.SelfKeepLatest == 0 && id.Name == "hab" && (id.Origin == "chef" || id.Origin == "core")
}

// IsHabitatPackage reports whether id is one of Habitat's own packages
// (chef/hab, chef/hab-sup, chef/hab-launcher and their core/
// predecessors): removing the running hab, the Supervisor or the launcher
// breaks the machine's management.
func IsHabitatPackage(id pkgstore.Ident) bool {
	switch id.Origin + "/" + id.Name {
	case "chef/hab", "chef/hab-sup", "chef/hab-launcher", "core/hab", "core/hab-sup", "core/hab-launcher":
		return true
	}
	return false
}

// Exclude pins releases: those that satisfy Pattern (Habitat's rule) and,
// when Constraint is set, whose version satisfies it as semver or is not
// semver at all (see ParseExclude).
type Exclude struct {
	Pattern    pkgstore.Ident
	Constraint *semver.Constraints
	// Raw is the text the exclude was parsed from.
	Raw string
	// Source says where the pin came from ("flag --exclude", a config
	// file's key, a schedule...), for the plan's reasons, its warnings and
	// the history; empty when unknown. Pins from several sources add up:
	// a Policy keeps every release any of its Excludes matches.
	Source string
}

// describe is the pin as the plan's texts name it: quoted, with its
// source when known.
func (e Exclude) describe() string {
	if e.Source == "" {
		return fmt.Sprintf("%q", e.Raw)
	}
	return fmt.Sprintf("%q (%s)", e.Raw, e.Source)
}

// ParseExclude parses "IDENT" or "IDENT@CONSTRAINT": "core/redis" pins
// every release of core/redis, "core/redis/4.0.14" every release of that
// version, "core/postgresql@>=11 <12" every release whose version is semver
// within the constraint (Masterminds/semver syntax). A version that is not
// semver (1.0.2k) cannot be judged by a constraint and is pinned too: a
// pin fails safe, and the plan warns about it (WarnNotSemver).
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

// match reports whether the exclude pins id. A release of the pattern's
// package whose version the constraint cannot judge (not semver, such as
// Habitat's 1.0.2k) is pinned too, failing safe; note then says why.
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

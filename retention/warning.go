package retention

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// WarningKind classifies a Warning. Its string form is stable and appears
// in JSON output.
type WarningKind string

const (
	// An exclude (pin) matches no installed release: often a typo, which
	// would let the release the operator meant to keep go.
	WarnUnmatchedExclude WarningKind = "unmatched-exclude"
	// An Only entry matches no installed release: often a typo.
	WarnUnmatchedOnly WarningKind = "unmatched-only"
	// A semver pin met versions that are not semver; those releases are
	// kept (see ParseExclude). One warning per pin.
	WarnNotSemver WarningKind = "exclude-not-semver"
	// A KeepLatestFor entry names a package with no installed release:
	// often a typo, which would leave the package at KeepLatest.
	WarnUnmatchedKeepLatestFor WarningKind = "unmatched-keep-latest-for"
	// ServicesOnly with no loaded service (no spec file): nothing is
	// removed.
	WarnNoServices WarningKind = "no-loaded-services"
	// The plan's clock (Plan.Now) is more than ClockAheadWarning ahead of
	// the real clock (Plan.RealNow): releases young by the real clock are
	// kept all the same, but the ages the plan shows are not the real
	// ones. A rehearsal with a clock set ahead on purpose shows it too.
	WarnClockAhead WarningKind = "clock-ahead"
)

// ClockAheadWarning is how far a plan's clock may be ahead of the real
// clock without a WarnClockAhead warning.
const ClockAheadWarning = 5 * time.Minute

// clockWarning warns of a plan's clock far ahead of the real one (realNow
// zero: not known).
func clockWarning(now, realNow time.Time) (Warning, bool) {
	ahead := now.Sub(realNow)
	if realNow.IsZero() || ahead <= ClockAheadWarning {
		return Warning{}, false
	}
	return Warning{Kind: WarnClockAhead, Text: fmt.Sprintf("the plan's clock (%s) is %s ahead of the real clock (%s): ages are measured by both, and a release young by either is kept",
		now.UTC().Format(time.RFC3339), ahead.Round(time.Second), realNow.UTC().Format(time.RFC3339))}, true
}

// Warning is something about the policy the operator should know: the plan
// is safe, but may not be what was meant.
//
// A Warning is to the policy what a pkgstore.Problem is to the store, but
// the two are not one type: a Problem names a path and can block removals
// (Blocking), a Warning names a pin or Only entry and never blocks, and
// their JSON fields differ (path, message, release, blocking, modified;
// pin, text, source).
type Warning struct {
	Kind WarningKind `json:"kind"`
	// Pin is the exclude or Only entry concerned, as written.
	Pin  string `json:"pin"`
	Text string `json:"text"`
	// Source is where an exclude came from (Exclude.Source); empty for
	// Only entries and pins of unknown source.
	Source string `json:"source,omitempty"`
}

// Pin is one exclude of a plan's policy: as written, where it came from,
// and how many installed releases it matches (and so keeps).
type Pin struct {
	Pin     string `json:"pin"`
	Source  string `json:"source,omitempty"`
	Matches int    `json:"matches"`
}

func (w Warning) String() string { return w.Text }

// Unmatched reports whether the warning is about a pin or Only entry that
// matches nothing installed.
func (w Warning) Unmatched() bool {
	return w.Kind == WarnUnmatchedExclude || w.Kind == WarnUnmatchedOnly || w.Kind == WarnUnmatchedKeepLatestFor
}

// policyWarnings lists, in policy order, the policy's pins with their
// matches, and the warnings: the excludes and Only entries that match no
// installed release (as the store spells them: casefold.go) and the
// semver pins that met versions they cannot judge.
func (p *Plan) policyWarnings() ([]Pin, []Warning) {
	inv, pol := p.Inventory, p.Policy
	var ws []Warning
	var pins []Pin
	for _, ex := range pol.Excludes {
		matches := 0
		var notSemver []string
		for _, r := range inv.SatisfyingAnyCase(ex.Pattern) { // all that ex.match may match
			ok, note := ex.match(r.Ident)
			if ok {
				matches++
			}
			if note != "" && (len(notSemver) == 0 || notSemver[len(notSemver)-1] != r.Ident.Version) {
				notSemver = append(notSemver, r.Ident.Version)
			}
		}
		pins = append(pins, Pin{Pin: ex.Raw, Source: ex.Source, Matches: matches})
		if matches == 0 {
			ws = append(ws, Warning{Kind: WarnUnmatchedExclude, Pin: ex.Raw, Source: ex.Source,
				Text: fmt.Sprintf("exclude %s matches no installed release (a typo would let what it should keep be removed)", ex.describe())})
		}
		if len(notSemver) > 0 {
			ws = append(ws, Warning{Kind: WarnNotSemver, Pin: ex.Raw, Source: ex.Source,
				Text: fmt.Sprintf("exclude %s: version(s) %s of %s are not semver, so its constraint cannot judge them: they are kept", ex.describe(), strings.Join(notSemver, ", "), pkgName(ex.Pattern))})
		}
	}
	for i, o := range pol.Only {
		if !slices.ContainsFunc(inv.Satisfying(p.only[i]), func(r *pkgstore.Release) bool { return r.Ident.Satisfies(p.only[i]) }) {
			ws = append(ws, onlyWarning(o, storeSpelling(inv, o)))
		}
	}
	for _, c := range p.counts {
		if inv.Latest(c.as) == nil {
			ws = append(ws, Warning{Kind: WarnUnmatchedKeepLatestFor, Pin: c.String(),
				Text: fmt.Sprintf("keep-latest-for %q matches no installed release (a typo would leave that package at keep-latest)", c.String())})
		}
	}
	if pol.ServicesOnly && len(inv.Services) == 0 {
		ws = append(ws, Warning{Kind: WarnNoServices, Pin: "services-only",
			Text: "services-only: no service is loaded (no spec file in " + pkgstore.SpecsDir + "), so this run removes nothing"})
	}
	return pins, ws
}

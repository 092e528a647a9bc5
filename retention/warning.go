package retention

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// WarningKind classifies a Warning; stable, in JSON output.
type WarningKind string

const (
	// A pin, Only or KeepLatestFor entry matches no installed release
	// (often a typo).
	WarnUnmatchedExclude       WarningKind = "unmatched-exclude"
	WarnUnmatchedOnly          WarningKind = "unmatched-only"
	WarnUnmatchedKeepLatestFor WarningKind = "unmatched-keep-latest-for"
	// A semver pin met versions that are not semver (kept).
	WarnNotSemver WarningKind = "exclude-not-semver"
	// ServicesOnly with no loaded service: nothing is removed.
	WarnNoServices WarningKind = "no-loaded-services"
	// Plan.Now is more than ClockAheadWarning ahead of Plan.RealNow.
	WarnClockAhead WarningKind = "clock-ahead"
)

const ClockAheadWarning = 5 * time.Minute

func clockWarning(now, realNow time.Time) (Warning, bool) {
	ahead := now.Sub(realNow)
	if realNow.IsZero() || ahead <= ClockAheadWarning {
		return Warning{}, false
	}
	return Warning{Kind: WarnClockAhead, Text: fmt.Sprintf("the plan's clock (%s) is %s ahead of the real clock (%s): ages are measured by both, and a release young by either is kept",
		now.UTC().Format(time.RFC3339), ahead.Round(time.Second), realNow.UTC().Format(time.RFC3339))}, true
}

// Warning is about the policy (the plan is safe, but may not be what was
// meant), as a pkgstore.Problem is about the store; it never blocks.
type Warning struct {
	Kind   WarningKind `json:"kind"`
	Pin    string      `json:"pin"` // the entry concerned, as written
	Text   string      `json:"text"`
	Source string      `json:"source,omitempty"`
}

// Pin is one exclude of a plan's policy and how many releases it keeps.
type Pin struct {
	Pin     string `json:"pin"`
	Source  string `json:"source,omitempty"`
	Matches int    `json:"matches"`
}

func (w Warning) String() string { return w.Text }

// Unmatched: an entry that matches nothing installed.
func (w Warning) Unmatched() bool {
	return w.Kind == WarnUnmatchedExclude || w.Kind == WarnUnmatchedOnly || w.Kind == WarnUnmatchedKeepLatestFor
}

// policyWarnings lists the pins with their matches, and the warnings, in
// policy order.
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

// Package inuse holds what a retention.RootFinder reports, below both
// retention and its default finder (runroots), which retention imports.
package inuse

import (
	"context"

	"github.com/hab-gc/hab-gc/pkgstore"
)

type Code string

const CodeInUse Code = "in-use"

// Root is a release kept for what the store's files do not show: a
// process, a Supervisor, a lease.
type Root struct {
	// Ident may name a release Apply has hidden (it is put back), or be
	// partial, keeping all that satisfy it; one without origin and name
	// fails the plan with ErrRootsUnknown.
	Ident pkgstore.Ident `json:"ident"`
	Code  Code           `json:"code"`
	Text  string         `json:"text"`
}

// Found is what one retention.RootFinder found.
type Found struct {
	Source  string         `json:"source"` // "processes", "supervisor"
	Roots   []Root         `json:"roots"`
	Summary string         `json:"summary"`          // what was looked at
	Notice  string         `json:"notice,omitempty"` // what could not be seen and what was done
	Counts  map[string]int `json:"counts,omitempty"` // behind Summary
	// Installs the store's files may not show (pkgstore.HeldArchive) are
	// treated as the inventory's Installing.
	Installs []pkgstore.Installing `json:"installs,omitempty"`
	// Probe, from a finder that could not see everything, checks the
	// releases about to go another way: those a plan would remove, then
	// under Apply's lock those still listed or hidden, and again after
	// hiding. Its roots and counts are added; its error fails the plan or
	// refuses the Apply with ErrRootsUnknown.
	Probe func(ctx context.Context, dirs []ProbeDir) (Probed, error) `json:"-"`
}

type ProbeDir struct {
	Ident pkgstore.Ident
	Path  string // where Apply hid it; empty for its own directory
}

// Dir is relative to the store, made when asked for (100,000 removals
// hold no path each).
func (d ProbeDir) Dir() string {
	if d.Path != "" {
		return d.Path
	}
	return d.Ident.String()
}

type Probed struct {
	Roots           []Root
	Installs        []pkgstore.Installing
	Counts          map[string]int
	Summary, Notice string // when set, replace the Found's
}

// HiddenRelease names the release in a directory Apply hid it under.
func HiddenRelease(name string) (release string, ok bool) {
	_, release, ok = pkgstore.ParseDebris(name)
	if !ok || release == "x" {
		return "", false
	}
	return release, true
}

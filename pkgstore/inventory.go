package pkgstore

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"
)

// Ref is a compact handle for an ident interned by a scan: every installed
// release and every ident named in a DEPS or TDEPS file gets one. A Ref is
// meaningful only with the Inventory that made it. Storing dependencies as
// Refs keeps a scan of a large store small in memory (a TDEPS line costs 4
// bytes, not a copy of the ident).
type Ref int32

// Release is one installed release: a directory
// hab/pkgs/ORIGIN/NAME/VERSION/RELEASE whose TARGET matches the scan's
// target and whose name is not an install temporary.
type Release struct {
	Ident Ident // from the path, as Habitat takes it
	// Deps and TDeps are the readable, valid lines of DEPS and TDEPS.
	Deps, TDeps []Ref
	// ModTime and ChangeTime are the release directory's modification and
	// inode change times. See InstalledAt.
	ModTime, ChangeTime time.Time
	// Size is the bytes on disk under the release directory, or -1 when the
	// scan was not asked for sizes.
	Size int64
	// Dev and Ino identify the release directory, so that a later step can
	// tell whether the directory it is about to remove is the one scanned.
	Dev, Ino uint64
	// Ref is the release's handle in its inventory. (The fields are in
	// this order so that a Release takes 192 bytes, not 208: a large
	// store holds one for every release.)
	Ref Ref
	// Damaged is set when DEPS or TDEPS could not be read, was larger than
	// the read limit (it is then read line by line: Deps and TDeps hold
	// the distinct releases it names), or held a line that is not a valid,
	// fully qualified ident: what the release needs is then not fully
	// known. The scan records a Problem for each cause.
	Damaged bool
	// DepsUnknown is set when nothing can be known of what the release
	// needs: DEPS or TDEPS exists but cannot be read at all (not a
	// regular file, unreadable, beyond depsStreamLimit or
	// depsStreamIdentBytes) and the other names nothing. It may then need
	// any release; a caller that proceeds despite the damage must remove
	// none while it is installed.
	DepsUnknown bool
}

// InstalledAt estimates when the release was installed: the later of the
// directory's mtime and ctime. An unpacked archive may carry old mtimes,
// but the rename that installs a release sets its ctime, which cannot be
// set back.
func (r *Release) InstalledAt() time.Time {
	if r.ChangeTime.After(r.ModTime) {
		return r.ChangeTime
	}
	return r.ModTime
}

// Path returns the release directory relative to the store
// (ORIGIN/NAME/VERSION/RELEASE, slash-separated).
func (r *Release) Path() string { return r.Ident.String() }

// Service is a loaded service: a spec file in hab/sup/default/specs.
type Service struct {
	// Name is the spec file's stem.
	Name string
	// SpecPath is the spec file, relative to the FS root.
	SpecPath string
	// Ident is the spec's ident as written (possibly partial).
	Ident Ident
	// Resolved is the release the Supervisor would run: the newest
	// installed release that satisfies Ident, picked as Habitat picks it
	// (see supervisorPicks). Installed is false when there is none.
	Resolved  Ident
	Installed bool
	// Ambiguous lists the other installed releases the Supervisor may run
	// instead: where Habitat cannot order their versions consistently, or
	// deems them equal (1.0 and 1.0.0 of one release), its pick depends on
	// directory order. When it is non-empty, Resolved is merely the newest
	// of the candidates by Compare; callers should protect them all.
	Ambiguous []Ident
	// DesiredState is the spec's desired_state ("up" when absent).
	DesiredState string
	// PIDFile, when set, is the service's PID file (FS_ROOT/hab/svc/NAME/PID,
	// relative to the FS root): the Supervisor started the service. When
	// PIDProblem is set, the file tells nothing of which release runs (it
	// cannot be read, is not a regular file, or names no live process):
	// any release Ident allows may. Else PID is its live process, and Runs
	// the release it runs: the Supervisor's pick among those installed
	// before the file was written (several where its pick depends on
	// directory order). Without a PID file the service is not running.
	PIDFile    string
	PIDProblem string
	PID        int
	Runs       []Ident
}

// Binlink is a symlink in a binlink directory that points into the store,
// or a path into the store a Windows binstub names (Binstub).
type Binlink struct {
	// Path is the link, relative to the FS root.
	Path string
	// Target is the link's content as read.
	Target string
	// Release is the release the link points into; valid only when
	// InStore is true.
	Release Ident
	InStore bool
	// StorePath is the target relative to the store (ORIGIN/NAME/VERSION/
	// RELEASE/bin/X), cleaned; valid only when InStore is true.
	StorePath string
	// Dangling is true when the link's target does not exist: its release
	// is not installed, or the file is missing from it (or a symlink to
	// nothing inside it).
	Dangling bool
	// Why says, for a dangling link, why it leads nowhere: which release
	// is not installed and what of its package is, or which file the
	// installed release lacks.
	Why string
	// Under is set when the link points at a directory above the
	// releases (ORIGIN, ORIGIN/NAME or ORIGIN/NAME/VERSION, relative to
	// the store), which `hab pkg binlink` never makes; Covers are the
	// installed releases below it, each reachable through the link.
	Under  string
	Covers []Ident
	// Binstub is set when Path is a Windows binstub (a .bat file `hab
	// pkg binlink` writes there), not a symlink; Target is then one of
	// the paths it names (ParseBinstub), and a binstub naming several
	// releases is one Binlink for each.
	Binstub bool
}

// Installing is an install in progress (or the leftover of a killed
// one) and what it needs: an install directory, or a fresh archive in the
// artifact cache (see Inventory.Installing and Inventory.Fetched).
type Installing struct {
	// Path is relative to the store (ORIGIN/NAME/VERSION/.hab-pkg-install...)
	// for an install directory, relative to the FS root
	// (hab/cache/artifacts/FILE) for an archive.
	Path string `json:"path"`
	// Release is the release being installed; zero when it cannot be
	// told.
	Release Ident `json:"release,omitzero"`
	// Deps are the releases it needs: the valid lines of its TDEPS and
	// DEPS.
	Deps []Ident `json:"deps,omitempty"`
	// Known is true when Deps is all it needs: read from its unpacked
	// TDEPS (the last metadata file Habitat's build writes), or from its
	// archive read whole or up to TDEPS. False: its TDEPS could not be
	// read yet (not unpacked, its archive gone, unreadable or too large),
	// and Deps is what could be read.
	Known bool `json:"known"`
	// From says where Deps were read from (a path relative to the FS
	// root), or why they could not be.
	From string `json:"from"`
	// Active is true when it changed within the scan's InstallWindow (or
	// the scan had no Now): an install that may be running.
	Active bool `json:"active"`
	// Changed is the latest modification or inode change found in it.
	Changed time.Time `json:"changed,omitzero"`
	// NotDir, for an entry of a VERSION directory named like an install
	// directory that is not a directory (a symlink, a file), says what it
	// is: never Habitat's, so never removed.
	NotDir string `json:"not_dir,omitempty"`
	// Dev and Ino identify an install directory, so that a run removes
	// only the one it examined.
	Dev, Ino uint64 `json:"-"`
	// Download is true for a download in progress in the artifact cache
	// (Habitat's ".tmpXXXXXX", an Inventory.Fetched entry with no
	// Release): Habitat downloads every missing dependency of a package
	// before it unpacks any, and that package may have found others
	// installed ("Using") from an archive cached long ago.
	Download bool `json:"download,omitempty"`
	// By, when set, is what shows the install besides its files: a
	// process that holds its archive or install directory open (package
	// runroots, HeldArchive), e.g. "process 4121 (hab) has it open".
	By string `json:"by,omitempty"`
}

// Opaque is a directory that Habitat lists (or may list) as an installed
// release but that hab-gc cannot read as one: a name on its path that
// cannot be part of a package ident ("2.5.0 rc1", a format character, bytes
// that are not UTF-8), or a TARGET that is a symlink or that hab-gc cannot
// read. Each comes with a blocking Problem. hab-gc never removes it, and a
// caller that proceeds despite the damage must keep what Deps names.
type Opaque struct {
	// Path is relative to the store (ORIGIN/NAME/VERSION/RELEASE), with
	// bytes that are not UTF-8 as Go escapes.
	Path string
	// Deps are the valid lines of its DEPS and TDEPS.
	Deps []Ident
	// DepsUnknown: nothing can be known of what it needs (as
	// Release.DepsUnknown); a caller must then remove no release.
	DepsUnknown bool
}

// Inventory is the result of a scan: what is installed, what is loaded,
// what is linked, and every problem found on the way.
type Inventory struct {
	// FSRoot is the FS root the store was read under; Target the package
	// target scanned for.
	FSRoot string
	Target string
	// Store identifies the store directory that was read (see StoreID).
	Store StoreID
	// Releases are the installed releases, sorted by Compare (oldest first
	// within each origin/name).
	Releases []*Release
	Services []Service
	Binlinks []Binlink
	// Installing are install directories (.hab-pkg-install*) that are not
	// hab-gc's own: installs in progress, or leftovers of killed ones,
	// with the dependencies their DEPS and TDEPS name. A release they need
	// must not be removed.
	Installing []Installing
	// Fetched are archives in the artifact cache
	// (FS_ROOT/hab/cache/artifacts) that came there within the scan's
	// InstallWindow and whose release is not installed: Habitat decides
	// from such an archive's TDEPS which installed releases it will use
	// ("Using") before it makes its install directory, so what they name
	// must stay.
	Fetched []Installing
	// Opaque are the directories Habitat lists (or may list) as installed
	// releases that hab-gc cannot read as releases; each is blocking
	// damage. See Opaque.
	Opaque []Opaque
	// Debris are hab-gc's own hidden directories left by an interrupted
	// run (see retention.Apply), relative to the store.
	Debris []string
	// Hidden are the releases among Releases that an interrupted hab-gc
	// run hid (Options.Hidden): the directory each is hidden in, relative
	// to the store, by release (see Dir).
	Hidden map[Ident]string
	// Mounts are the mount points inside the store (relative to it,
	// slash-separated), as this process's mount namespace sees them.
	Mounts []string
	// BinlinkDirs are the binlink directories that were read.
	BinlinkDirs []string
	// InstallWindow is the scan's Options.InstallWindow (the default
	// filled in): how recent a change made an install count as in
	// progress. A re-scan of the same store uses it again.
	InstallWindow time.Duration
	// Problems are every damaged, odd or unreadable thing the scan found,
	// sorted by path. See Problem.Blocking.
	Problems []Problem

	byRef   []*Release // by Ref; nil when that ident is not installed
	missing []missingDep
	// absent are the idents of the Refs not installed, by Ref: an
	// installed one's is its Release's (a copy for every Ref was 64
	// bytes a release at the peak of a large plan).
	absent []absentIdent
	// sorted are the Refs ordered by their idents (cmpFields), for
	// Lookup: 4 bytes a ref where the scan's map of ident strings took
	// about 90 (its entry and its key), at the peak of a large plan.
	sorted []Ref

	// folded are the releases by foldKey where names are case-insensitive
	// (Windows; fold.go), nil elsewhere.
	folded map[string][]*Release
}

// absentIdent is the ident of a Ref no installed release has.
// missingDep is a dependency line of an installed release that names a
// release not installed.
type missingDep struct {
	rel *Release
	dep Ref
}

// MissingDeps yields each dependency that an installed release's DEPS or
// TDEPS names and that is not installed, with the release naming it, in
// inventory order (a dependency both files name, once): what the
// ProblemDepMissing problems report, as data, without reading every
// release's dependencies again.
func (inv *Inventory) MissingDeps() iter.Seq2[*Release, Ref] {
	return func(yield func(*Release, Ref) bool) {
		for _, m := range inv.missing {
			if !yield(m.rel, m.dep) {
				return
			}
		}
	}
}

type absentIdent struct {
	ref Ref
	id  Ident
}

// cmpFields orders idents field by field, as Lookup searches them.
func cmpFields(a, b Ident) int {
	if c := strings.Compare(a.Origin, b.Origin); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	if c := strings.Compare(a.Version, b.Version); c != 0 {
		return c
	}
	return strings.Compare(a.Release, b.Release)
}

// sortedRefs is every Ref below n ordered by cmpFields, with ident the
// ident of each Ref. Idents are distinct (one Ref each).
func sortedRefs(n int, ident func(Ref) Ident) []Ref {
	refs := make([]Ref, n)
	for r := range refs {
		refs[r] = Ref(r)
	}
	slices.SortFunc(refs, func(a, b Ref) int { return cmpFields(ident(a), ident(b)) })
	return refs
}

// Ident returns the ident a Ref stands for.
func (inv *Inventory) Ident(r Ref) Ident {
	if rel := inv.byRef[r]; rel != nil {
		return rel.Ident
	}
	i, ok := slices.BinarySearchFunc(inv.absent, r, func(a absentIdent, r Ref) int { return int(a.ref - r) })
	if !ok { // every Ref is installed or absent (finishInventory)
		panic(fmt.Sprintf("pkgstore: Ref %d is not of this inventory", r))
	}
	return inv.absent[i].id
}

// NumRefs returns how many idents the inventory interned; every Ref is in
// [0, NumRefs()).
func (inv *Inventory) NumRefs() int { return len(inv.byRef) }

// Lookup returns the Ref of a fully qualified ident, if the scan met it.
func (inv *Inventory) Lookup(id Ident) (Ref, bool) {
	i, ok := slices.BinarySearchFunc(inv.sorted, id, func(r Ref, id Ident) int { return cmpFields(inv.Ident(r), id) })
	if !ok {
		return 0, false
	}
	return inv.sorted[i], true
}

// ReleaseOf returns the installed release a Ref stands for, or nil when
// that ident is named somewhere but not installed.
func (inv *Inventory) ReleaseOf(r Ref) *Release { return inv.byRef[r] }

// Installed returns the installed release with this fully qualified ident,
// or nil.
func (inv *Inventory) Installed(id Ident) *Release {
	if r, ok := inv.Lookup(id); ok && inv.byRef[r] != nil {
		return inv.byRef[r]
	}
	return inv.installedFolded(id) // another case, on Windows
}

// Satisfying returns the installed releases that satisfy pattern, oldest
// first.
func (inv *Inventory) Satisfying(pattern Ident) []*Release {
	lo, hi := inv.packageRange(pattern.Origin, pattern.Name)
	var out []*Release
	for _, r := range inv.Releases[lo:hi] {
		if r.Ident.Satisfies(pattern) {
			out = append(out, r)
		}
	}
	if out == nil {
		return inv.satisfyingFolded(pattern) // another case, on Windows
	}
	return out
}

// Package returns the installed releases of origin/name, oldest first,
// exactly as spelled: the inventory's own slice (read it, do not change
// it), found by a binary search, with nothing allocated.
func (inv *Inventory) Package(origin, name string) []*Release {
	lo, hi := inv.packageRange(origin, name)
	return inv.Releases[lo:hi:hi]
}

// SatisfyingAnyCase returns the installed releases that satisfy pattern
// in any case where names fold case (Ident.SatisfiesAnyCase: Windows),
// exactly elsewhere, oldest first. Where names do not fold it reads one
// package's releases, not the store's.
func (inv *Inventory) SatisfyingAnyCase(pattern Ident) []*Release {
	if inv.folded == nil {
		return inv.Satisfying(pattern)
	}
	var out []*Release
	for _, r := range inv.Releases {
		if r.Ident.SatisfiesAnyCase(pattern) {
			out = append(out, r)
		}
	}
	return out
}

// Latest returns the newest installed release that satisfies pattern, as
// the Supervisor would pick it, or nil.
func (inv *Inventory) Latest(pattern Ident) *Release {
	s := inv.Satisfying(pattern)
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}

// packageRange returns the index range of origin/name in the sorted
// Releases.
func (inv *Inventory) packageRange(origin, name string) (int, int) {
	key := Ident{Origin: origin, Name: name}
	lo, _ := slices.BinarySearchFunc(inv.Releases, key, func(r *Release, k Ident) int {
		if c := strings.Compare(r.Ident.Origin, k.Origin); c != 0 {
			return c
		}
		return strings.Compare(r.Ident.Name, k.Name)
	})
	hi := lo
	for hi < len(inv.Releases) && inv.Releases[hi].Ident.Origin == origin && inv.Releases[hi].Ident.Name == name {
		hi++
	}
	return lo, hi
}

// Blocking returns the problems that make the store's dependency picture
// incomplete (see Problem.Blocking). A caller about to delete anything
// must refuse while this is non-empty, unless told to proceed.
func (inv *Inventory) Blocking() []Problem {
	var out []Problem
	for _, p := range inv.Problems {
		if p.Blocking {
			out = append(out, p)
		}
	}
	return out
}

// String summarises the inventory in one line.
func (inv *Inventory) String() string {
	return fmt.Sprintf("%d releases, %d services, %d binlinks, %d problems (%d blocking) in %s for %s",
		len(inv.Releases), len(inv.Services), len(inv.Binlinks), len(inv.Problems), len(inv.Blocking()), inv.FSRoot, inv.Target)
}

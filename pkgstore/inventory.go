package pkgstore

import (
	"fmt"
	"github.com/hab-gc/hab-gc/internal/provenance"
	"iter"
	"slices"
	"strings"
	"time"
)

// Ref is an ident interned by a scan (4 bytes a DEPS line, not a copy),
// meaningful only with the Inventory that made it.
type Ref int32

// Release is an installed release: hab/pkgs/ORIGIN/NAME/VERSION/RELEASE
// with the scan's TARGET. Fields are ordered to keep it at 192 bytes.
type Release struct {
	Ident               Ident // from the path, as Habitat takes it
	Deps, TDeps         []Ref // the valid lines of DEPS and TDEPS
	ModTime, ChangeTime time.Time
	Size                int64  // bytes on disk; -1 when not measured
	Dev, Ino            uint64 // tell a replaced directory from the one scanned
	Ref                 Ref
	// Damaged: DEPS or TDEPS was unreadable, over the read limit (then
	// read line by line) or held an invalid line; a Problem says which.
	Damaged bool
	// DepsUnknown: nothing is known of what it needs, so while it is
	// installed a caller that proceeds despite the damage removes nothing.
	DepsUnknown bool
}

// InstalledAt is the later of the directory's mtime and ctime: the rename
// that installs a release sets its ctime, whatever the archive's mtimes.
func (r *Release) InstalledAt() time.Time {
	if r.ChangeTime.After(r.ModTime) {
		return r.ChangeTime
	}
	return r.ModTime
}

// Path is the release directory relative to the store.
func (r *Release) Path() string { return r.Ident.String() }

// Service is a loaded service: a spec file in hab/sup/default/specs.
type Service struct {
	Name     string // the spec file's stem
	SpecPath string // relative to the FS root
	Ident    Ident  // as written, possibly partial
	// Resolved is the release the Supervisor would run (Installed false:
	// none); Ambiguous the others it may run where its pick depends on
	// directory order. Callers protect them all.
	Resolved     Ident
	Installed    bool
	Ambiguous    []Ident
	DesiredState string // "up" when absent
	// PIDFile (hab/svc/NAME/PID) is set once the Supervisor started the
	// service. PIDProblem set: any release Ident allows may run. Else PID
	// is its live process and Runs the releases it may run.
	PIDFile    string
	PIDProblem string
	PID        int
	Runs       []Ident
}

// Binlink is a symlink in a binlink directory that points into the store,
// or a path into the store a Windows binstub names.
type Binlink struct {
	Path   string // the link, relative to the FS root
	Target string // its content as read
	// Release and StorePath (cleaned, relative to the store) are valid
	// only when InStore.
	Release   Ident
	InStore   bool
	StorePath string
	Dangling  bool
	Why       string // why a dangling link leads nowhere
	// Under is a directory above the releases the link points at (`hab
	// pkg binlink` never makes one); Covers the releases below it.
	Under  string
	Covers []Ident
	// Binstub: Path is a Windows .bat binstub, one Binlink a path it names.
	Binstub bool
}

// Installing is an install in progress (or a killed one's leftover) and
// what it needs: an install directory, or a fresh archive in the artifact
// cache.
type Installing struct {
	// Path is relative to the store for an install directory, to the FS
	// root for an archive.
	Path    string  `json:"path"`
	Release Ident   `json:"release,omitzero"` // zero when it cannot be told
	Deps    []Ident `json:"deps,omitempty"`
	// Known: Deps is all it needs (its TDEPS was read); From says where
	// Deps came from, or why they could not be read.
	Known   bool      `json:"known"`
	From    string    `json:"from"`
	Active  bool      `json:"active"` // changed within the InstallWindow
	Changed time.Time `json:"changed,omitzero"`
	// NotDir says what an entry named like an install directory is when
	// it is not a directory: never Habitat's, never removed.
	NotDir   string `json:"not_dir,omitempty"`
	Dev, Ino uint64 `json:"-"`
	// Download: a download in progress in the artifact cache (".tmpXXXXXX").
	Download bool `json:"download,omitempty"`
	// By is a process that holds it open, e.g. "process 4121 (hab) has it open".
	By string `json:"by,omitempty"`
}

// Opaque is a directory Habitat lists (or may list) as a release that
// hab-gc cannot read as one (a name no ident allows, an unreadable or
// symlinked TARGET), with a blocking Problem. It is never removed, and a
// caller that proceeds despite the damage keeps what Deps names.
type Opaque struct {
	Path        string // relative to the store
	Deps        []Ident
	DepsUnknown bool // as Release.DepsUnknown
}

// Inventory is what a scan found: what is installed, loaded and linked,
// and every problem met on the way.
type Inventory struct {
	FSRoot   string
	Target   string
	Store    StoreID
	Releases []*Release // sorted by Compare
	Services []Service
	Binlinks []Binlink
	// Installing are install directories not hab-gc's own; Fetched are
	// archives cached within the InstallWindow whose release is not
	// installed (Habitat picks what it "Uses" from their TDEPS). What
	// either needs must stay.
	Installing []Installing
	Fetched    []Installing
	Opaque     []Opaque
	// Debris are hab-gc's hidden directories an interrupted run left;
	// Hidden the directory of each release read from one (Options.Hidden).
	Debris        []string
	Hidden        map[Ident]string
	Mounts        []string // mount points inside the store, relative to it
	BinlinkDirs   []string
	InstallWindow time.Duration // the scan's, default filled in
	Problems      []Problem     // sorted by path

	byRef       []*Release // nil where that ident is not installed
	installedBy map[[2]uint64]provenance.Record
	missing     []missingDep
	absent      []absentIdent         // the idents of Refs not installed
	sorted      []Ref                 // by ident (cmpFields), for Lookup
	folded      map[string][]*Release // by foldKey on Windows; nil elsewhere
}

type missingDep struct {
	rel *Release
	dep Ref
}

// MissingDeps yields each dependency a release names that is not
// installed, with that release: the ProblemDepMissing problems as data.
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
	if !ok {
		panic(fmt.Sprintf("pkgstore: Ref %d is not of this inventory", r))
	}
	return inv.absent[i].id
}

// NumRefs is how many idents the inventory interned: Refs are below it.
func (inv *Inventory) NumRefs() int { return len(inv.byRef) }

// Lookup returns the Ref of a fully qualified ident, if the scan met it.
func (inv *Inventory) Lookup(id Ident) (Ref, bool) {
	i, ok := slices.BinarySearchFunc(inv.sorted, id, func(r Ref, id Ident) int { return cmpFields(inv.Ident(r), id) })
	if !ok {
		return 0, false
	}
	return inv.sorted[i], true
}

// ReleaseOf returns the installed release of a Ref, or nil.
func (inv *Inventory) ReleaseOf(r Ref) *Release { return inv.byRef[r] }

// Installed returns the installed release of a fully qualified ident, or nil.
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

// Package returns the installed releases of origin/name, oldest first: the
// inventory's own slice, not to be changed.
func (inv *Inventory) Package(origin, name string) []*Release {
	lo, hi := inv.packageRange(origin, name)
	return inv.Releases[lo:hi:hi]
}

// SatisfyingAnyCase is Satisfying in any case where names fold case
// (Windows).
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

// Blocking returns the problems that leave what is needed unknown: a
// caller deletes nothing while there is one, unless told to proceed.
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

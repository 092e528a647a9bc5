package artifactcache

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

const Dir = "hab/cache/artifacts"

var ErrNoCache = errors.New("no artifact cache")

// ErrRefused comes with ErrNoCache when a level of Dir is a symlink or not
// a directory: there may be a cache, hab-gc does not read it.
var ErrRefused = errors.New("left alone, not read")

type Action string

const (
	Keep   Action = "keep"
	Remove Action = "remove"
	Leave  Action = "leave" // not hab-gc's to judge
)

// Reason codes of cache decisions, besides retention's (CodeInstalling,
// CodeYoung, CodeChanged).
const (
	CodeReleaseKept   retention.Code = "release-kept"   // keep: the plan keeps its release
	CodeCacheLatest   retention.Code = "cache-latest"   // keep: among the newest KeepLatest archives of its package
	CodeNotInstalled  retention.Code = "not-installed"  // remove: its release is not installed
	CodeRemovedInRun  retention.Code = "removed-in-run" // remove: the run removes its release
	CodeNotHart       retention.Code = "not-hart"       // leave
	CodeDotFile       retention.Code = "dot-file"       // leave: a download in progress
	CodeNotRegular    retention.Code = "not-regular"    // leave
	CodeForeignTarget retention.Code = "foreign-target" // leave: not the run's target
	DefaultKeepLatest                = 1
)

// ReleaseState is what the retention plan does with a release.
type ReleaseState int

const (
	NotInstalled ReleaseState = iota
	Kept
	Removed
	Installing // in progress or killed half way: Habitat unpacks the archive
)

type ReleaseStateFunc func(pkgstore.Ident) ReleaseState

var ErrInvalidOptions = errors.New("invalid artifact cache options")

// Options: each zero value is the safe default (docs/library.md, "Zero and
// negative values"); "none" is a named constant.
type Options struct {
	// KeepLatest archives of each package whose release is not kept stay
	// (an offline rollback): 0 is DefaultKeepLatest, retention.KeepNone none.
	KeepLatest int
	// MinAge leaves files changed more recently: 0 is
	// retention.DefaultMinAge, retention.NoMinAge none.
	MinAge time.Duration
	Now    time.Time // zero: when Plan is called
	// Target (default pkgstore.DefaultTarget()): an archive of another, or
	// of an unreadable TARGET, is left (CodeForeignTarget).
	Target string
	// Protect (retention.Plan.Protects) keeps an archive it gives reasons
	// for, with them.
	Protect func(pkgstore.Ident) []retention.Reason
}

func (o Options) Validate() error {
	if o.KeepLatest < retention.KeepNone {
		return fmt.Errorf("%w: keep-latest %d (0 for the default %d, retention.KeepNone for none)", ErrInvalidOptions, o.KeepLatest, DefaultKeepLatest)
	}
	if o.MinAge < 0 && o.MinAge != retention.NoMinAge {
		return fmt.Errorf("%w: min-age %s is negative (0 for the default, retention.NoMinAge for none)", ErrInvalidOptions, o.MinAge)
	}
	return nil
}

// resolved sets defaults and turns each named "none" into 0.
func (o Options) resolved() Options {
	switch {
	case o.KeepLatest == 0:
		o.KeepLatest = DefaultKeepLatest
	case o.KeepLatest < 0:
		o.KeepLatest = 0
	}
	switch {
	case o.MinAge == 0:
		o.MinAge = retention.DefaultMinAge
	case o.MinAge < 0:
		o.MinAge = 0
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Target == "" {
		o.Target = pkgstore.DefaultTarget()
	}
	return o
}

// File is the decision for one entry of the cache directory.
type File struct {
	File    string             `json:"file"`
	Ident   *pkgstore.Ident    `json:"ident"`
	Target  string             `json:"target,omitempty"`
	Action  Action             `json:"action"`
	Reasons []retention.Reason `json:"reasons"`
	Size    int64              `json:"size"` // what removing it frees

	id fileID
}

type fileID struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
}

func idOf(fi fs.FileInfo) fileID {
	dev, ino := fileinfo.ID(fi)
	return fileID{dev, ino, fi.Size(), fi.ModTime()}
}

type Cache struct {
	root *os.Root
}

// Open refuses a symlink at any of Dir's three levels; off Unix and
// Windows it fails with errors.ErrUnsupported.
func Open(fsRoot string) (*Cache, error) {
	if err := supported(); err != nil {
		return nil, err
	}
	if err := pkgstore.RequireFSRoot(fsRoot); err != nil {
		return nil, err
	}
	top, err := safeio.OpenRoot(fsRoot)
	if err != nil {
		return nil, err
	}
	defer top.Close()
	for _, p := range []string{"hab", "hab/cache", Dir} {
		fi, err := top.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s does not exist", ErrNoCache, p)
		}
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%w: %s is a %s, not a directory: %w", ErrNoCache, p, safeio.Kind(fi.Mode()), ErrRefused)
		}
	}
	// It may have changed since the Lstat.
	r, err := safeio.OpenRootAt(top, Dir, safeio.NoFollow)
	if err != nil {
		return nil, err
	}
	return &Cache{root: r}, nil
}

func (c *Cache) Close() error { return c.root.Close() }

// Plan decides for every entry of the cache, sorted by name.
func (c *Cache) Plan(ctx context.Context, status ReleaseStateFunc, opts Options) ([]File, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.resolved()
	d, err := c.root.Open(".")
	if err != nil {
		return nil, err
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return cmp.Compare(a.Name(), b.Name()) })
	var files []File
	byPkg := map[string][]int{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := c.examine(e.Name(), opts)
		if f.Action == "" && f.Target != opts.Target {
			text := "built for " + f.Target + ", not this run's target " + opts.Target + ": not the installed release of that ident; left alone"
			if f.Target == "" {
				text = "its TARGET could not be read, so it may not be this run's target " + opts.Target + ": left alone"
			}
			f.Action, f.Reasons = Leave, []retention.Reason{{Code: CodeForeignTarget, Text: text}}
		}
		if f.Action == "" && opts.Protect != nil {
			if rs := opts.Protect(*f.Ident); len(rs) > 0 {
				f.Action, f.Reasons = Keep, rs
			}
		}
		if f.Action == "" {
			st := status(*f.Ident)
			if st == Installing {
				f.Action, f.Reasons = Keep, []retention.Reason{{Code: retention.CodeInstalling, Text: "its release " + f.Ident.String() + " is being installed (an install directory of it is in the store): Habitat unpacks it from this archive"}}
			} else if st == Kept {
				f.Action, f.Reasons = Keep, []retention.Reason{{Code: CodeReleaseKept, Text: "its release " + f.Ident.String() + " is kept"}}
			} else {
				pkg := f.Ident.Origin + "/" + f.Ident.Name
				byPkg[pkg] = append(byPkg[pkg], len(files))
				if st == Removed {
					f.Reasons = []retention.Reason{{Code: CodeRemovedInRun, Text: "its release " + f.Ident.String() + " is removed by this run"}}
				} else {
					f.Reasons = []retention.Reason{{Code: CodeNotInstalled, Text: "its release " + f.Ident.String() + " is not installed"}}
				}
			}
		}
		files = append(files, f)
	}
	for pkg, idx := range byPkg {
		slices.SortStableFunc(idx, func(a, b int) int { return pkgstore.Compare(*files[b].Ident, *files[a].Ident) })
		for rank, i := range idx {
			if rank < opts.KeepLatest {
				files[i].Action = Keep
				files[i].Reasons = append(files[i].Reasons, retention.Reason{Code: CodeCacheLatest,
					Text: fmt.Sprintf("newest archive of %s whose release is not kept (%s of %d kept for an offline rollback)", pkg, humanize.Ordinal(rank+1), opts.KeepLatest)})
			} else {
				files[i].Action = Remove
			}
		}
	}
	return files, nil
}

// examine leaves Action empty for a .hart to decide on.
func (c *Cache) examine(name string, opts Options) File {
	f := File{File: name}
	leave := func(code retention.Code, text string) File {
		f.Action, f.Reasons = Leave, []retention.Reason{{Code: code, Text: text}}
		return f
	}
	if strings.HasPrefix(name, ".") {
		return leave(CodeDotFile, "a dot-file (a download in progress): left alone")
	}
	fi, err := c.root.Lstat(name)
	if err != nil {
		return leave(CodeNotHart, "cannot be examined: "+err.Error())
	}
	if !fi.Mode().IsRegular() {
		return leave(CodeNotRegular, "a "+safeio.Kind(fi.Mode())+", not a regular file: left alone")
	}
	f.Size = allocated(fi)
	// An mtime ahead of the clock would keep the archive for good.
	changed, _ := fileinfo.ChangedAt(fi, opts.Now)
	if age := opts.Now.Sub(changed); opts.MinAge > 0 && age < opts.MinAge {
		return leave(retention.CodeYoung, fmt.Sprintf("written %s ago, less than the minimum age %s (a download may be in progress)", age.Round(time.Second), opts.MinAge))
	}
	if !strings.HasSuffix(name, ".hart") {
		return leave(CodeNotHart, "not named *.hart (a download in progress, or not Habitat's): left alone")
	}
	r, err := c.root.OpenFile(name, os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if err != nil {
		return leave(CodeNotHart, "cannot be read: "+err.Error())
	}
	defer r.Close()
	if ofi, err := r.Stat(); err != nil || idOf(ofi) != idOf(fi) {
		return leave(CodeNotHart, "changed while being read: left alone")
	}
	f.id = openedID(r, fi)
	id, target, err := identify(io.LimitReader(r, fi.Size()))
	if err != nil {
		return leave(CodeNotHart, err.Error()+": left alone")
	}
	f.Ident, f.Target = &id, target
	return f
}

// allocated is 0 when other hard links keep the file.
func allocated(fi fs.FileInfo) int64 {
	if links(fi) > 1 {
		return 0
	}
	return fileinfo.DiskUsage(fi)
}

type FileOutcome struct {
	File   string                  `json:"file"`
	Status retention.RemovalStatus `json:"status"`
	Reason string                  `json:"reason,omitempty"`
	Bytes  int64                   `json:"bytes_freed"`
}

// Remove deletes each file to remove if it is still the file read: on Unix
// renamed to a dot-name (which Habitat and hab-gc skip), checked again and
// unlinked. The caller holds the store's lock.
func (c *Cache) Remove(ctx context.Context, files []File) []FileOutcome {
	var outs []FileOutcome
	for _, f := range files {
		if f.Action != Remove {
			continue
		}
		if ctx.Err() != nil {
			outs = append(outs, FileOutcome{File: f.File, Status: retention.StatusNotAttempted, Reason: "the run was cancelled"})
			continue
		}
		outs = append(outs, c.removeOne(f))
	}
	return outs
}

func (c *Cache) removeOne(f File) FileOutcome {
	if out, ok := c.removeHandle(f); ok { // Windows
		return out
	}
	out := FileOutcome{File: f.File, Status: retention.StatusKept}
	fi, err := c.root.Lstat(f.File)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		out.Reason = "already gone"
		return out
	case err != nil:
		out.Status, out.Reason = retention.StatusFailed, err.Error()
		return out
	case !fi.Mode().IsRegular() || idOf(fi) != f.id:
		out.Reason = string(retention.CodeChanged) + ": not the file that was read: left alone"
		return out
	}
	hidden := ".hab-gc-" + strings.ToLower(rand.Text()[:10]) + "-" + path.Base(f.File)
	if err := c.root.Rename(f.File, hidden); err != nil {
		out.Status, out.Reason = retention.StatusFailed, err.Error()
		return out
	}
	hi, err := c.root.Lstat(hidden)
	if err != nil || idOf(hi) != f.id {
		// Swapped between the check and the rename: put it back.
		if err := c.root.Rename(hidden, f.File); err != nil {
			out.Status, out.Reason = retention.StatusFailed, "replaced while being removed; left as "+hidden+": "+err.Error()
			return out
		}
		out.Reason = string(retention.CodeChanged) + ": replaced while being removed: put back"
		return out
	}
	if err := c.root.Remove(hidden); err != nil {
		out.Status, out.Reason = retention.StatusFailed, err.Error()
		return out
	}
	out.Status, out.Bytes = retention.StatusRemoved, f.Size
	return out
}

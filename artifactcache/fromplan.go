package artifactcache

import (
	"context"
	"slices"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// StateOf is the ReleaseStateFunc a store's plan gives the cache clean-up
// (Plan): Installing for a release being installed from its archive
// (BeingInstalled), NotInstalled for one the plan does not know, Removed
// for one it removes, else Kept. Under disk pressure (underPressure) a
// release the plan removes counts as kept: pressure may keep it, and its
// archive then stays until a later run.
//
// Where the store folds case (Windows: pkgstore/fold.go), an archive whose
// IDENT names a release in another case than the store's directory
// (Core/Redis/7.0.0/... for core\redis\7.0.0\...) is that release's:
// Habitat installs it by joining that IDENT into a path
// (habitat-sh/habitat components/core/src/fs.rs pkg_install_path), which
// Windows opens as core\redis\..., and finds it installed there. So the
// archive of a kept release is kept, and that of a release the run
// removes stays until the next run (Recheck compares Apply's outcomes
// exactly). The cache's per-package count (Options.KeepLatest) groups
// archives by their IDENT's exact origin/name: two spellings of one
// package each keep their newest (more, never fewer).
func StateOf(plan *retention.Plan, underPressure bool) ReleaseStateFunc {
	installing := BeingInstalled(plan.Inventory)
	return func(id pkgstore.Ident) ReleaseState {
		if installing(id) {
			return Installing
		}
		d, ok := plan.Decision(id)
		if !ok {
			if r := plan.Inventory.Installed(id); r != nil {
				d, ok = plan.Decision(r.Ident) // another case, on Windows
			}
		}
		switch {
		case !ok:
			return NotInstalled
		case d.Action == retention.Remove && !underPressure:
			return Removed
		}
		return Kept
	}
}

// BeingInstalled reports whether inv shows an install in progress of a
// release that opens its archive in the cache:
//   - an install directory of it in the store: Habitat unpacks from the
//     archive (or is about to);
//   - a fresh archive of it while it is not installed (Inventory.Fetched:
//     the plan waits for its install within the install window, which,
//     unlike the cache's MinAge, cannot be turned off);
//   - a fresh symlink named as its archive (a Fetched entry without a
//     release: hab-gc does not read through it). Habitat installing the
//     release opens it (install.rs is_artifact_cached follows it) and
//     verifies it is that release's, so the archive it leads to in the
//     cache, under whatever name, is that release's and being installed
//     too.
func BeingInstalled(inv *pkgstore.Inventory) func(pkgstore.Ident) bool {
	installing := map[pkgstore.Ident]bool{}
	for _, in := range slices.Concat(inv.Installing, inv.Fetched) {
		if in.Release.Origin != "" {
			installing[in.Release] = true
		}
	}
	linked := map[string]bool{}
	for _, in := range inv.Fetched {
		if name, ok := strings.CutPrefix(in.Path, pkgstore.ArtifactCacheDir+"/"); ok && in.Release.Origin == "" && !in.Download {
			linked[name] = true
		}
	}
	return func(id pkgstore.Ident) bool { return installing[id] || linked[id.ArchiveName(inv.Target)] }
}

// Recheck keeps, of the files Plan removes, those the run must keep after
// all, judged when they are about to go: the archive of a release the
// run's Apply did not remove (res: kept at its last check; nil when Apply
// removed nothing), and the archive of an install begun since the plan,
// read from the store again with scan as Apply's last check reads it (an
// install directory, a fresh archive or symlinked archive: Habitat opens
// the archive again to unpack it). When the store cannot be read again,
// no archive is removed. Call it under the store's lock, just before
// Remove.
func Recheck(ctx context.Context, store *pkgstore.Store, files []File, res *retention.Result, scan pkgstore.Options) {
	removed := map[pkgstore.Ident]bool{}
	if res != nil {
		for _, o := range res.Outcomes {
			if o.Status == retention.StatusRemoved {
				removed[o.Ident] = true
			}
		}
	}
	for i := range files {
		f := &files[i]
		if f.Action == Remove && f.Reasons[0].Code == CodeRemovedInRun && (f.Ident == nil || !removed[*f.Ident]) {
			f.Action = Keep
			f.Reasons = append(f.Reasons, retention.Reason{Code: CodeReleaseKept, Text: "its release was kept at run time"})
		}
	}
	if !slices.ContainsFunc(files, func(f File) bool { return f.Action == Remove }) {
		return
	}
	inv, err := store.Scan(ctx, scan)
	var installing func(pkgstore.Ident) bool
	if err == nil {
		installing = BeingInstalled(inv)
	}
	for i := range files {
		f := &files[i]
		switch {
		case f.Action != Remove:
		case err != nil:
			f.Action = Keep
			f.Reasons = append(f.Reasons, retention.Reason{Code: retention.CodeInstalling,
				Text: "the store could not be read again for installs begun since the plan, so no archive is removed: " + err.Error()})
		case f.Ident != nil && installing(*f.Ident):
			f.Action = Keep
			f.Reasons = append(f.Reasons, retention.Reason{Code: retention.CodeInstalling,
				Text: "its release " + f.Ident.String() + " began to be installed since the plan: Habitat unpacks it from this archive"})
		}
	}
}

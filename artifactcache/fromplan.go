package artifactcache

import (
	"context"
	"slices"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// StateOf: under pressure a removal counts as kept (pressure may keep it).
// Where the store folds case, an IDENT differing in case is its release's,
// as pkg_install_path opens it (components/core/src/fs.rs).
func StateOf(plan *retention.Plan, underPressure bool) ReleaseStateFunc {
	installing := beingInstalled(plan.Inventory)
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

// beingInstalled: an install directory, a fresh archive, or a fresh
// symlink named as its archive (install.rs is_artifact_cached follows it).
func beingInstalled(inv *pkgstore.Inventory) func(pkgstore.Ident) bool {
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

// Recheck keeps, just before Remove and under the store's lock, the
// archives of releases Apply kept and of installs begun since the plan;
// when the store cannot be read again, every archive.
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
		installing = beingInstalled(inv)
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

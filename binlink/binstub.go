package binlink

import (
	"fmt"
	"path"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// planBinstub plans a Windows binstub: a batch file `hab pkg binlink`
// writes (habitat-sh/habitat components/hab/src/command/pkg/binlink.rs
// Binlink::link renders components/hab/static/template_binstub.bat; its
// target, as Binlink::from_file reads it back, is the `REM target = ...`
// line), which the scan reads as one pkgstore.Binlink for each path into
// the store it names (its target, the program its last line runs, its
// PATH). One step per binstub, from its first record: it is removed only
// when every path it names leads nowhere, where Apply can remove it
// (removesBinstubs: Windows), and when no release of its package is
// installed or removal is asked for (RemoveOnly). Pointing it at another
// release is `hab pkg binlink --force`'s, which renders the binstub with
// that release's environment (Binlink::stub_template, environment_for_
// command): hab-gc leaves it, saying so. ok is false for a record of a
// binstub already planned.
func planBinstub(inv *pkgstore.Inventory, bl pkgstore.Binlink, opts Options, planned map[string]bool) (st Step, ok bool) {
	if planned[bl.Path] {
		return Step{}, false
	}
	planned[bl.Path] = true
	st = Step{Link: bl.Path, Target: bl.Target, Release: bl.Release, Dangling: bl.Why, Action: ActionLeave, storePath: bl.StorePath, binstub: true}
	for _, o := range inv.Binlinks {
		if o.Path == bl.Path && o.Binstub && o.InStore && !o.Dangling {
			st.Reason = fmt.Sprintf("it is a Windows binstub that also names %s, which is there: left alone", o.Target)
			return st, true
		}
	}
	rels := inv.Satisfying(bl.Release.Package())
	switch {
	case !removesBinstubs:
		st.Reason = "it is a Windows binstub (a .bat file), which hab-gc changes only on Windows (`hab pkg binlink --force` rewrites it): left alone"
	case bl.Release.Origin == "" || bl.Release.Release == "":
		st.Reason = "it is a Windows binstub naming no release, so `hab pkg binlink` did not make it: left alone"
	case opts.RemoveOnly:
		st.Action, st.Reason = ActionRemove, "removal asked for (--remove)"
	case len(rels) > 0:
		st.Reason = fmt.Sprintf("it is a Windows binstub, and %s is installed: `hab pkg binlink --force %s %s` rewrites it with that release's environment, which hab-gc does not: left alone",
			rels[len(rels)-1].Ident, bl.Release.Package(), binstubCommand(bl.StorePath))
	default:
		st.Action, st.Reason = ActionRemove, fmt.Sprintf("it is a Windows binstub, and no release of %s is installed", bl.Release.Package())
	}
	return st, true
}

// binstubCommand is the command a binstub runs, without its extension
// (binstub_path's file_stem).
func binstubCommand(storePath string) string {
	b := path.Base(storePath)
	return b[:len(b)-len(path.Ext(b))]
}

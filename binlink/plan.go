package binlink

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// Action is what a plan does with one dangling binlink.
type Action string

const (
	ActionRelink Action = "relink"
	ActionRemove Action = "remove"
	ActionLeave  Action = "leave"
)

type Options struct {
	RemoveOnly bool // remove instead of relinking
}

// Step is the plan for one dangling binlink.
type Step struct {
	Link       string         `json:"link"` // FS-root-relative
	Target     string         `json:"target"`
	Release    pkgstore.Ident `json:"release,omitzero"`
	Dangling   string         `json:"dangling"` // why it leads nowhere
	Action     Action         `json:"action"`
	NewTarget  string         `json:"new_target,omitempty"`
	NewRelease pkgstore.Ident `json:"new_release,omitzero"`
	Reason     string         `json:"reason"`

	storePath string // Target relative to the store
	binstub   bool
}

// Plan is what Apply would do.
type Plan struct {
	FSRoot string
	Steps  []Step

	// beforeChange (tests) runs between Apply's check of a link and its change.
	beforeChange func(link string)
}

const pathLimit = 1 << 20

// NewPlan plans the repair of every dangling binlink of inv, scanned from store.
func NewPlan(store *pkgstore.Store, inv *pkgstore.Inventory, opts Options) (*Plan, error) {
	if store == nil || inv == nil {
		return nil, errors.New("binlink: NewPlan needs the store and its inventory")
	}
	p := &Plan{FSRoot: inv.FSRoot}
	binstubs := map[string]bool{}
	ok := true
	for _, bl := range inv.Binlinks {
		if !bl.InStore || !bl.Dangling {
			continue
		}
		var st Step
		if !bl.Binstub {
			st = planOne(store.Root(), inv, bl, opts)
		} else if st, ok = planBinstub(inv, bl, opts, binstubs); !ok { // a Windows batch file
			continue
		}
		if st.Action != ActionLeave {
			if why := symlinkedDir(store.FSRoot(), path.Dir(bl.Path)); why != "" {
				st.Action, st.NewTarget, st.NewRelease = ActionLeave, "", pkgstore.Ident{}
				st.Reason = why + "; hab-gc changes nothing through a symlink (name the directory it leads to in HAB_BINLINK_DIR): left alone"
			}
		}
		p.Steps = append(p.Steps, st)
	}
	return p, nil
}

// symlinkedDir names a symlink on the way from fsRoot to rel, or "" (on
// most Linux systems /bin is one).
func symlinkedDir(fsRoot, rel string) string {
	cur := ""
	for _, c := range strings.Split(rel, "/") {
		cur = path.Join(cur, c)
		full := filepath.Join(fsRoot, filepath.FromSlash(cur))
		fi, err := os.Lstat(full)
		if err != nil {
			return fmt.Sprintf("%s cannot be checked (%v)", full, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			t, _ := os.Readlink(full)
			return fmt.Sprintf("the binlink directory %s is a symlink to %s", full, t)
		}
	}
	return ""
}

func planOne(root *os.Root, inv *pkgstore.Inventory, bl pkgstore.Binlink, opts Options) Step {
	st := Step{Link: bl.Path, Target: bl.Target, Release: bl.Release, Dangling: bl.Why, Action: ActionLeave, storePath: bl.StorePath}
	if st.Dangling == "" {
		st.Dangling = "its target does not exist"
	}
	parts := strings.SplitN(bl.StorePath, "/", 5)
	switch {
	case bl.Under != "" || bl.Release.Release == "" || len(parts) < 5:
		st.Reason = "it points at a directory, not at a command inside a release, so `hab pkg binlink` did not make it: left alone"
		return st
	}
	switch nowhere, err := leadsNowhere(root, bl.StorePath); {
	case err != nil:
		st.Reason = fmt.Sprintf("whether its target exists cannot be told (%v): left alone", err)
		return st
	case !nowhere:
		st.Reason = "its target is there (in a release directory that is not installed): left alone"
		return st
	}
	command := path.Base(bl.StorePath)
	if opts.RemoveOnly {
		st.Action, st.Reason = ActionRemove, "removal asked for (--remove)"
		return st
	}
	rels := inv.Satisfying(bl.Release.Package())
	for _, r := range slices.Backward(rels) {
		if r.Damaged {
			continue
		}
		if target, ok := findCommand(root, r.Ident, command); ok {
			st.Action, st.NewTarget, st.NewRelease = ActionRelink, target, r.Ident
			st.Reason = fmt.Sprintf("%s is the newest installed release of %s with %s", r.Ident, r.Ident.Package(), command)
			return st
		}
	}
	st.Action = ActionRemove
	if len(rels) == 0 {
		st.Reason = fmt.Sprintf("no release of %s is installed", bl.Release.Package())
	} else {
		st.Reason = fmt.Sprintf("no installed release of %s has %s on its PATH", bl.Release.Package(), command)
	}
	return st
}

// leadsNowhere follows symlinks inside the store, as Habitat's is_file.
func leadsNowhere(root *os.Root, rel string) (bool, error) {
	_, err := root.Stat(rel)
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return true, nil
	}
	return false, err
}

// findCommand is find_command_in_pkg (components/core/src/fs.rs) over
// PackageInstall::paths: the first directory of PATH inside the release
// holding a regular file named command.
func findCommand(root *os.Root, id pkgstore.Ident, command string) (string, bool) {
	rel := path.Join(id.Origin, id.Name, id.Version, id.Release)
	b, err := safeio.ReadFileAt(root, rel+"/PATH", pathLimit, safeio.NoFollow)
	if err != nil {
		return "", false // no PATH: Habitat finds no command either
	}
	body := string(b)
	prefix := "/" + pkgstore.StoreDir + "/" + rel
	for _, dir := range strings.Split(strings.TrimSpace(body), ":") {
		d := path.Clean(dir)
		if d != prefix && !strings.HasPrefix(d, prefix+"/") {
			continue // Habitat's filter: p.starts_with(pkg_prefix)
		}
		inner := strings.TrimPrefix(strings.TrimPrefix(d, prefix), "/")
		cand := path.Join(rel, inner, command)
		if fi, err := root.Stat(cand); err == nil && fi.Mode().IsRegular() {
			return path.Join(d, command), true
		}
	}
	return "", false
}

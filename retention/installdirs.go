package retention

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// InstallDir is an install directory (Habitat's .hab-pkg-install-*) and
// what a run does with it: a killed install's leftover is removed.
type InstallDir struct {
	// Path is relative to the store: ORIGIN/NAME/VERSION/.hab-pkg-install-...
	Path   string `json:"path"`
	Remove bool   `json:"remove"`
	Why    string `json:"why"`

	dev, ino uint64 // the directory examined
}

// InstallDirs says what a run would do with the store's install
// directories (hab-gc check); when the finders fail, none is removed.
func InstallDirs(ctx context.Context, inv *pkgstore.Inventory, pol Policy) []InstallDir {
	found, err := pol.FindRoots(ctx, inv)
	if err == nil {
		return installDirs(ctx, inv, found, true)
	}
	dirs := installDirs(ctx, inv, nil, false)
	for i := range dirs {
		if dirs[i].Why == notRead {
			dirs[i].Why = "what is in use could not be read (" + err.Error() + "), so a process may hold it"
		}
	}
	return dirs
}

const notRead = "the running processes were not read (runtime roots off), so one may hold it"

// installDirs decides each install directory. Habitat never reuses one,
// so one unchanged within the install window and held by no process is a
// killed install's leftover; while an install runs, or a blind finder's
// probe (probeHeld) cannot clear one, every one stays.
func installDirs(ctx context.Context, inv *pkgstore.Inventory, found []Found, probeHeld bool) []InstallDir {
	if inv == nil || len(inv.Installing) == 0 {
		return nil
	}
	held := map[string]string{}
	running := ""
	for _, in := range foundInstalls(found) {
		if in.Path != "" && !strings.HasPrefix(in.Path, pkgstore.ArtifactCacheDir+"/") {
			held[in.Path] = in.By
		} else if running == "" {
			running = heldWhy(in)
		}
	}
	unseen := notRead
	if slices.ContainsFunc(found, func(f Found) bool { return f.Source == "processes" }) {
		unseen = ""
	}
	out := make([]InstallDir, 0, len(inv.Installing))
	var probe []int // candidates a blind finder must clear
	for _, in := range inv.Installing {
		d := InstallDir{Path: in.Path, dev: in.Dev, ino: in.Ino}
		changed := in.Changed.UTC().Format(time.RFC3339)
		switch {
		case in.NotDir != "":
			d.Why = "a " + in.NotDir + ", not a directory Habitat's install makes: left alone"
		case held[in.Path] != "":
			d.Why = "an install in progress: " + held[in.Path]
		case in.Active:
			d.Why = "an install in progress: changed " + changed + ", within the install window, or still being written"
		case running != "":
			d.Why = "kept while an install runs (" + running + ")"
		case unseen != "":
			d.Why = unseen
		default:
			d.Remove = true
			d.Why = "a killed install's leftover: unchanged since " + changed + ", older than the install window, and no process holds it (Habitat's listing skips it and never removes it)"
			probe = append(probe, len(out))
		}
		out = append(out, d)
	}
	for _, f := range found {
		if f.Probe == nil || len(probe) == 0 {
			continue
		}
		why := ""
		var pr Probed
		if !probeHeld {
			why = "not every process could be seen (" + f.Source + ") and its files were not checked another way"
		} else {
			dirs := make([]ProbeDir, len(probe))
			for i, k := range probe {
				dirs[i] = ProbeDir{Ident: probeIdent(out[k].Path), Path: out[k].Path}
			}
			var err error
			if pr, err = f.Probe(ctx, dirs); err != nil {
				why = "not every process could be seen and its files could not be checked: " + err.Error()
			}
		}
		for _, k := range probe {
			d := &out[k]
			if !d.Remove {
				continue
			}
			if why != "" {
				d.Remove, d.Why = false, why
			} else if i := slices.IndexFunc(pr.Roots, func(r Root) bool { return r.Ident == probeIdent(d.Path) }); i >= 0 {
				d.Remove, d.Why = false, "an install in progress: "+pr.Roots[i].Text
			}
		}
	}
	return out
}

// probeIdent names an install directory in a probe by a release no
// release is.
func probeIdent(path string) pkgstore.Ident {
	p := strings.SplitN(path, "/", 4)
	if len(p) < 4 {
		return pkgstore.Ident{Release: path}
	}
	return pkgstore.Ident{Origin: p[0], Name: p[1], Version: p[2], Release: p[3]}
}

// removeInstallDirs deletes the install directories to remove, each
// examined again just before: one gone or replaced is left alone.
func (a *applier) removeInstallDirs(dirs []InstallDir) {
	for _, d := range dirs {
		if !d.Remove || a.ctx.Err() != nil {
			continue
		}
		fi, err := a.root.Lstat(d.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // finished or removed meanwhile
		}
		l := Leftover{Path: d.Path, Status: StatusNotAttempted}
		switch dev, ino := fileinfo.ID(fi); {
		case err != nil:
			l.Status, l.Text = StatusFailed, "cannot be examined: "+err.Error()
		case !fi.IsDir():
			l.Text = "now a " + fileKind(fi.Mode()) + ": left alone"
		case dev != d.dev || ino != d.ino:
			l.Text = "replaced since it was examined (an install may be using it): left alone"
		default:
			a.stage("leftover", probeIdent(d.Path), d.Path)
			l.Status, l.Text = a.removeInstallDir(d)
		}
		a.res.Leftovers = append(a.res.Leftovers, l)
		if l.Status == StatusFailed {
			a.res.Failed++
			a.log.Warn("install directory", "path", l.Path, "status", string(l.Status), "error", l.Text)
		} else {
			a.log.Debug("install directory", "path", l.Path, "status", string(l.Status), "reason", l.Text)
		}
	}
}

func (d InstallDir) String() string {
	if d.Remove {
		return fmt.Sprintf("%s%s: a run removes it: %s", pkgstore.StoreDir+"/", d.Path, d.Why)
	}
	return fmt.Sprintf("%s%s: kept: %s", pkgstore.StoreDir+"/", d.Path, d.Why)
}

// removeInstallDir dooms d first (an install finishing meanwhile cannot
// rename its release out of it), then deletes what it renamed only if it
// is the directory examined; one put in its place is renamed back.
func (a *applier) removeInstallDir(d InstallDir) (RemovalStatus, string) {
	sv := a.survey(d.Path, false)
	switch {
	case sv.err != nil:
		return StatusFailed, "could not be deleted: " + sv.err.Error()
	case len(sv.mounts) > 0:
		return StatusFailed, "not deleted: " + mountText(pkgstore.StoreDir+"/"+d.Path+"/"+sv.mounts[0])
	}
	doomed, err := a.doom(d.Path, "x")
	if err != nil {
		return StatusFailed, "could not be deleted: " + err.Error()
	}
	fi, err := a.root.Lstat(doomed)
	if dev, ino := fileinfo.ID(fi); err != nil || !fi.IsDir() || dev != d.dev || ino != d.ino {
		if err := a.root.Rename(doomed, d.Path); err != nil {
			return StatusFailed, "replaced since it was examined, and could not be renamed back from " + doomed + ": " + err.Error()
		}
		return StatusNotAttempted, "replaced since it was examined (an install may be using it): left alone"
	}
	a.syncDoom(path.Dir(doomed))
	if err := a.removeDoomed(path.Dir(doomed), path.Base(doomed)); err != nil {
		return StatusFailed, "could not be deleted: " + err.Error()
	}
	return StatusRemoved, "deleted: " + d.Why
}

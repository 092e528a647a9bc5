//go:build unix

package binlink

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

type dir struct {
	f    *os.File
	fd   int
	name string // FS-root-relative, for messages
	full string
}

// openDir opens rel below fsRoot without following a symlink; without an
// atomic exchange of two names, nothing is opened (ErrUnsupported).
func openDir(fsRoot, rel string) (dir, error) {
	if !atomicExchange {
		return dir{}, fmt.Errorf("binlink: %w: no atomic exchange of two names on this system", errors.ErrUnsupported)
	}
	full := filepath.Join(fsRoot, filepath.FromSlash(rel))
	f, err := safeio.OpenDirBeneath(fsRoot, rel, false)
	var se *safeio.SymlinkError
	switch {
	case errors.As(err, &se):
		return dir{}, fmt.Errorf("binlink: %s is a symlink to %s: %w; nothing changed (name the directory it leads to in HAB_BINLINK_DIR)", se.Path, se.Target, ErrUnsafeDir)
	case errors.Is(err, unix.ENOTDIR):
		return dir{}, fmt.Errorf("binlink: %w: %w; nothing changed", err, ErrUnsafeDir)
	case err != nil:
		return dir{}, fmt.Errorf("binlink: opening %s: %w", full, err)
	}
	return dir{f: f, fd: int(f.Fd()), name: rel, full: full}, nil
}

func (d dir) close() { d.f.Close() }

// sync makes the directory's changes durable.
func (d dir) sync() { unix.Fsync(d.fd) }

// link reads the symlink name in d without following it: its identity
// and target; ok is false when it is not a symlink (kind says what).
func (d dir) link(name string) (st unix.Stat_t, target string, ok bool, err error) {
	if err = unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return st, "", false, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return st, "", false, nil
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(d.fd, name, buf)
	if err != nil {
		return st, "", false, err
	}
	return st, string(buf[:n]), true, nil
}

// same reports whether name in d is still the symlink identified by want
// with target.
func (d dir) same(name string, want unix.Stat_t, target string) bool {
	st, t, ok, err := d.link(name)
	return err == nil && ok && st.Dev == want.Dev && st.Ino == want.Ino && t == target
}

// tempName returns a name free in d for a moment.
func (d dir) tempName(i int) string { return fmt.Sprintf(".hab-gc-binlink-%d-%d", os.Getpid(), i) }

// apply carries out one relink or removal (see the package documentation).
func (d dir) apply(store *pkgstore.Store, s Step, beforeChange func(string)) StepOutcome {
	name := path.Base(s.Link)
	o := StepOutcome{Step: s, Status: StatusKept}
	st, target, ok, err := d.link(name)
	switch {
	case errors.Is(err, unix.ENOENT):
		o.Why = "it is gone since the plan"
		return o
	case err != nil:
		o.Err = fmt.Errorf("reading %s: %w", s.Link, err)
		return o
	case !ok:
		o.Why = fmt.Sprintf("it is no longer a symlink (%s): left alone", safeio.Kind(safeio.ModeOf(uint32(st.Mode))))
		return o
	case target != s.Target:
		o.Why = fmt.Sprintf("it points to %s since the plan: left alone", target)
		return o
	}
	switch nowhere, err := leadsNowhere(store.Root(), s.storePath); {
	case err != nil:
		o.Why = fmt.Sprintf("whether its target exists cannot be told now (%v): left alone", err)
		return o
	case !nowhere:
		o.Why = "its target is there now: left alone"
		return o
	}
	if beforeChange != nil {
		beforeChange(s.Link)
	}
	if s.Action == ActionRelink {
		newRel := strings.TrimPrefix(s.NewTarget, "/"+pkgstore.StoreDir+"/")
		if fi, err := store.Root().Stat(newRel); err != nil || !fi.Mode().IsRegular() {
			o.Why = fmt.Sprintf("%s is gone since the plan: left alone", s.NewTarget)
			return o
		}
		return d.relink(name, st, s, o)
	}
	return d.remove(name, st, s, o)
}

// relink: the new symlink under a temporary name, swapped with the old
// one atomically; what was swapped out is checked to be the planned link
// and removed, or swapped back. Habitat's `hab pkg binlink --force`
// (components/hab/src/command/pkg/binlink.rs start) removes the old link
// and then symlinks the target (fs::remove_file, then
// filesystem::symlink): the same link in the end, without the moment when
// the command is missing, and never removing what is not the planned link.
func (d dir) relink(name string, old unix.Stat_t, s Step, o StepOutcome) StepOutcome {
	tmp, err := d.symlinkTemp(s.NewTarget)
	if err != nil {
		o.Err = fmt.Errorf("creating a symlink in %s: %w", d.full, err)
		return o
	}
	var ours unix.Stat_t
	if err := unix.Fstatat(d.fd, tmp, &ours, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		o.Err = fmt.Errorf("checking %s: %w", filepath.Join(d.full, tmp), err)
		return o
	}
	if err := exchange(d.fd, tmp, name); err != nil {
		unix.Unlinkat(d.fd, tmp, 0) // ours, never swapped
		o.Err = fmt.Errorf("swapping %s in: %w", s.Link, err)
		return o
	}
	if d.same(tmp, old, s.Target) {
		if err := unix.Unlinkat(d.fd, tmp, 0); err != nil {
			o.Err = fmt.Errorf("relinked %s, but the old link is left at %s: %w", s.Link, filepath.Join(d.full, tmp), err)
			return o
		}
		o.Status = StatusRelinked
		return o
	}
	// Swapped for something else than the planned link: put it back.
	if err := exchange(d.fd, tmp, name); err != nil {
		o.Err = fmt.Errorf("%s changed while being relinked, and what was there is left at %s: %w", s.Link, filepath.Join(d.full, tmp), err)
		return o
	}
	if d.same(tmp, ours, s.NewTarget) {
		unix.Unlinkat(d.fd, tmp, 0)
	}
	o.Why = "it changed while being relinked: put back, left alone"
	return o
}

// remove: the link renamed to a temporary name (replacing nothing),
// checked there to be the planned link and unlinked, or renamed back.
func (d dir) remove(name string, old unix.Stat_t, s Step, o StepOutcome) StepOutcome {
	var tmp string
	for i := 0; ; i++ {
		tmp = d.tempName(i)
		err := renameNoReplace(d.fd, name, tmp)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EEXIST) || i > 100 {
			o.Err = fmt.Errorf("moving %s aside: %w", s.Link, err)
			return o
		}
	}
	if d.same(tmp, old, s.Target) {
		if err := unix.Unlinkat(d.fd, tmp, 0); err != nil {
			o.Err = fmt.Errorf("removing %s (moved to %s): %w", s.Link, filepath.Join(d.full, tmp), err)
			return o
		}
		o.Status = StatusRemoved
		return o
	}
	if err := renameNoReplace(d.fd, tmp, name); err != nil {
		o.Err = fmt.Errorf("%s changed while being removed, and what was there is left at %s: %w", s.Link, filepath.Join(d.full, tmp), err)
		return o
	}
	o.Why = "it changed while being removed: put back, left alone"
	return o
}

// symlinkTemp creates a symlink to target under a free temporary name.
func (d dir) symlinkTemp(target string) (string, error) {
	for i := 0; ; i++ {
		tmp := d.tempName(i)
		err := unix.Symlinkat(target, d.fd, tmp)
		if err == nil {
			return tmp, nil
		}
		if !errors.Is(err, unix.EEXIST) || i > 100 {
			return "", err
		}
	}
}

// removesBinstubs: Windows binstubs are left alone here (binstub.go).
const removesBinstubs = false

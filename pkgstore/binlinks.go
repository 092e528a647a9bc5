package pkgstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// readBinlinks reads the symlinks in each binlink directory and ties those
// that point into the store to their release. Links are read, never
// followed.
func (s *Store) readBinlinks(inv *Inventory, dirs []string, probs *problems) {
	seen := map[string]bool{}
	for _, d := range dirs {
		rel := strings.TrimPrefix(path.Clean("/"+filepath.ToSlash(d)), "/")
		if seen[rel] {
			continue
		}
		seen[rel] = true
		full := filepath.Join(s.fsRoot, filepath.FromSlash(rel))
		entries, err := safeio.ReadDir(full)
		if errors.Is(err, fs.ErrNotExist) {
			if link, target, ok := dangling(s.fsRoot, rel); ok {
				probs.add(Problem{Path: rel, Kind: ProblemUnreadable, Blocking: true,
					Message: fmt.Sprintf("%s is a symlink to %s, which does not exist (a volume not mounted?), so which releases are linked is unknown", quoteName(link), quoteName(target))})
			}
			continue
		}
		if err != nil {
			probs.add(Problem{Path: rel, Kind: ProblemUnreadable, Blocking: true,
				Message: fmt.Sprintf("cannot read binlink directory, so which releases are linked is unknown: %s", errMsg(err))})
			continue
		}
		for _, e := range entries {
			if e.Type().IsRegular() && hasBinstubExt(e.Name()) {
				s.readBinstub(inv, rel, full, e.Name(), probs)
				continue
			}
			if e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			// The link's own name, not its display form: binlink
			// repairs it by this name.
			linkPath := rel + "/" + e.Name()
			target, err := os.Readlink(filepath.Join(full, e.Name()))
			if err != nil {
				probs.add(Problem{Path: quoteName(linkPath), Kind: ProblemUnreadable,
					Message: fmt.Sprintf("cannot read link: %s", errMsg(err))})
				continue
			}
			if bl, ok := s.binlink(inv, rel, linkPath, target); ok {
				inv.Binlinks = append(inv.Binlinks, bl)
			}
		}
	}
}

// binlink interprets one link. Targets name the store either as Habitat
// sees it inside the FS root (/hab/pkgs/...) or, when Habitat ran with an
// FS_ROOT, with that prefix (FSROOT/hab/pkgs/...). ok is false for links
// that do not point into the store.
func (s *Store) binlink(inv *Inventory, dir, linkPath, target string) (Binlink, bool) {
	t := filepath.ToSlash(target)
	if !path.IsAbs(t) {
		t = path.Join("/", dir, t)
	}
	t = path.Clean(t)
	var rest string
	hostStore := filepath.ToSlash(s.Path()) + "/"
	switch {
	case strings.HasPrefix(t, "/"+StoreDir+"/"):
		rest = strings.TrimPrefix(t, "/"+StoreDir+"/")
	case s.fsRoot != "/" && strings.HasPrefix(t, hostStore):
		rest = strings.TrimPrefix(t, hostStore)
	default:
		return Binlink{}, false
	}
	return s.storeLink(inv, Binlink{Path: linkPath, Target: target}, rest), true
}

// storeLink judges bl, a link or binstub whose target is rest in the
// store (ORIGIN/NAME/VERSION/RELEASE/...): which release, and whether it
// leads anywhere.
func (s *Store) storeLink(inv *Inventory, bl Binlink, rest string) Binlink {
	bl.InStore, bl.Dangling, bl.StorePath = true, true, rest
	parts := strings.SplitN(rest, "/", 5)
	if len(parts) < 4 {
		return s.partialBinlink(inv, bl, rest)
	}
	id, err := ParseFullIdent(strings.Join(parts[:4], "/"))
	if err != nil {
		return bl
	}
	bl.Release = id
	r := inv.Installed(id)
	if r == nil {
		bl.Why = notInstalled(inv, id)
		return bl
	}
	bl.Release, id = r.Ident, r.Ident // the store's spelling (fold.go)
	rest = r.Ident.String() + rest[len(strings.Join(parts[:4], "/")):]
	bl.StorePath = rest
	file := "its directory"
	if len(parts) == 5 {
		file = parts[4]
	}
	fi, err := s.pkgs.Lstat(rest)
	switch {
	case errors.Is(err, fs.ErrNotExist) || isNotDir(err):
		bl.Why = fmt.Sprintf("%s is installed but has no %s", id, quoteName(file))
	case err != nil:
		bl.Why = fmt.Sprintf("%s is installed but its %s cannot be checked: %s", id, quoteName(file), errMsg(err))
	case fi.Mode()&fs.ModeSymlink != 0:
		// Habitat's find_command_in_pkg (habitat-sh/habitat
		// components/core/src/fs.rs) takes a file only when it
		// is_file(), through symlinks: a symlink to nothing inside the
		// release leads nowhere. Followed only inside the store (os.Root);
		// one that leaves it is not judged.
		if _, err := s.pkgs.Stat(rest); errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
			bl.Why = fmt.Sprintf("%s is installed but its %s is a symlink to nothing", id, quoteName(file))
		} else {
			bl.Dangling = false
		}
	default:
		bl.Dangling = false
	}
	return bl
}

// notInstalled says why a link into release id, which is not installed,
// leads nowhere, and what of its package is installed.
func notInstalled(inv *Inventory, id Ident) string {
	if l := inv.Latest(id.Package()); l != nil {
		return fmt.Sprintf("%s is not installed (the newest installed release of %s is %s)", id, id.Package(), l.Ident)
	}
	return fmt.Sprintf("%s is not installed (no release of %s is installed)", id, id.Package())
}

// isNotDir reports ENOTDIR: a file where the path needs a directory.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// partialBinlink interprets a link to a directory above the releases:
// /hab/pkgs/ORIGIN, /hab/pkgs/ORIGIN/NAME or /hab/pkgs/ORIGIN/NAME/VERSION.
// Habitat's own binlinks always name a file inside one release (habitat-sh/habitat
// components/hab/src/command/pkg/binlink.rs: the target is the path
// find_command_in_pkg finds in the release), so this one was made by hand,
// and whoever follows it may reach any release below: when the directory
// exists the link is not dangling and covers each installed release below.
func (s *Store) partialBinlink(inv *Inventory, bl Binlink, rest string) Binlink {
	if rest == "" {
		return bl
	}
	bl.Under = rest
	if fi, err := s.pkgs.Lstat(rest); err != nil || !fi.IsDir() {
		return bl
	}
	bl.Dangling = false
	prefix := strings.Split(rest, "/")
	for _, r := range inv.Releases {
		p := []string{r.Ident.Origin, r.Ident.Name, r.Ident.Version, r.Ident.Release}
		match := true
		for i, x := range prefix {
			match = match && p[i] == x
		}
		if match {
			bl.Covers = append(bl.Covers, r.Ident)
		}
	}
	return bl
}

// dangling returns the first symlink on the way from fsRoot to rel (a
// slash-separated path) whose target does not exist, and its target: a
// directory that is not there because a volume is not mounted yet is
// not the same as no directory.
func dangling(fsRoot, rel string) (link, target string, ok bool) {
	parts := strings.Split(rel, "/")
	cur := fsRoot
	for i, p := range parts {
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		if err != nil {
			return "", "", false // really absent
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if _, err := os.Stat(cur); errors.Is(err, fs.ErrNotExist) {
			target, _ = os.Readlink(cur)
			return strings.Join(parts[:i+1], "/"), target, true
		}
	}
	return "", "", false
}

// hasBinstubExt reports a name ending in .bat, in any case.
func hasBinstubExt(name string) bool {
	return len(name) > len(binstubExt) && strings.EqualFold(name[len(name)-len(binstubExt):], binstubExt)
}

// readBinstub reads the batch file name in the binlink directory rel
// (full on disk): on Windows `hab pkg binlink` writes binstubs, not
// symlinks (habitat-sh/habitat components/hab/src/command/pkg/binlink.rs
// Binlink::link and binstub_path). Each path into the store it names (its
// target as Habitat reads it back, the program its last line runs, its
// PATH) is a Binlink with Binstub set, so that the release behind
// hab\bin\redis-cli.bat is kept as the one behind a symlink is. A batch
// file naming nothing in the store is not a binlink. It is read without
// following a symlink and never past safeio.Limit; one that cannot be
// read is a blocking problem, since the releases it names are unknown.
func (s *Store) readBinstub(inv *Inventory, rel, full, name string, probs *problems) {
	linkPath := rel + "/" + name
	data, err := safeio.ReadFile(filepath.Join(full, name), safeio.Limit, safeio.NoFollow)
	if err != nil {
		probs.add(Problem{Path: quoteName(linkPath), Kind: ProblemUnreadable, Blocking: true,
			Message: fmt.Sprintf("cannot read binstub, so which release it runs is unknown: %s", errMsg(err))})
		return
	}
	for _, target := range ParseBinstub(data).Named() {
		rest, ok := WindowsStorePath(target, s.fsRoot)
		if !ok {
			continue
		}
		bl := s.storeLink(inv, Binlink{Path: linkPath, Target: target, Binstub: true}, rest)
		inv.Binlinks = append(inv.Binlinks, bl)
	}
}

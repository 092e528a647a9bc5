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

// readBinlinks ties the links of each binlink directory that point into
// the store to their release, never following one.
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

// binlink interprets a link to /hab/pkgs/... or FSROOT/hab/pkgs/...; ok is
// false for one that does not point into the store.
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

// storeLink judges a link whose target is rest in the store.
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
		// As find_command_in_pkg (core/src/fs.rs) is_file(), followed
		// only inside the store.
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

func notInstalled(inv *Inventory, id Ident) string {
	if l := inv.Latest(id.Package()); l != nil {
		return fmt.Sprintf("%s is not installed (the newest installed release of %s is %s)", id, id.Package(), l.Ident)
	}
	return fmt.Sprintf("%s is not installed (no release of %s is installed)", id, id.Package())
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// partialBinlink interprets a hand-made link to a directory above the
// releases (Habitat's name a file in one, binlink.rs): it covers every
// release below.
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

// dangling returns the first symlink from fsRoot to rel whose target does
// not exist (a volume not mounted yet is not an absent directory).
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

func hasBinstubExt(name string) bool {
	return len(name) > len(binstubExt) && strings.EqualFold(name[len(name)-len(binstubExt):], binstubExt)
}

// readBinstub reads a Windows binstub (binlink.rs Binlink::link): each
// path into the store it names is a Binlink. One that cannot be read is
// blocking.
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

package pkgstoretest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// DefaultTarget is the TARGET written when a Release does not set one.
const DefaultTarget = "x86_64-linux"

// Store writes a package store under an FS root.
type Store struct {
	// Root is the FS root (the store is Root/hab/pkgs).
	Root string
	// tdeps remembers each release's TDEPS so that later releases can
	// compute their closure.
	tdeps map[string][]string
	err   error
}

// New makes an empty store (hab/pkgs) under root, creating root if need be.
func New(root string) (*Store, error) {
	if root == "" {
		return nil, errors.New("pkgstoretest: empty root")
	}
	s := &Store{Root: root, tdeps: map[string][]string{}}
	s.Mkdir("hab/pkgs")
	return s, s.err
}

// Err returns the first error any method met; after one, methods do
// nothing.
func (s *Store) Err() error { return s.err }

// Release describes one release directory.
type Release struct {
	// Ident is origin/name/version/release.
	Ident string
	// Deps are the direct dependencies. TDeps, when nil, is computed as
	// Deps followed by their TDEPS (as Habitat writes it), from releases
	// added earlier.
	Deps, TDeps []string
	// Target defaults to DefaultTarget; "-" writes no TARGET file.
	Target string
	// IdentFile overrides the IDENT content; "-" writes no IDENT file.
	IdentFile string
	// ModTime sets the release directory's modification time (default:
	// left as created).
	ModTime time.Time
	// Files are extra files (path relative to the release: content).
	Files map[string]string
	// UninstallHook writes hooks/uninstall.
	UninstallHook bool
}

// Path returns the absolute path of rel (slash-separated, relative) under
// the FS root.
func (s *Store) Path(rel string) string { return filepath.Join(s.Root, filepath.FromSlash(rel)) }

// PkgPath returns the absolute path of a release directory.
func (s *Store) PkgPath(ident string) string { return s.Path("hab/pkgs/" + ident) }

// Pkg adds a release with direct deps and a computed TDEPS.
func (s *Store) Pkg(ident string, deps ...string) *Store {
	return s.Add(Release{Ident: ident, Deps: deps})
}

// Add writes releases.
func (s *Store) Add(rels ...Release) *Store {
	for _, r := range rels {
		if strings.Count(r.Ident, "/") != 3 {
			s.fail(fmt.Errorf("pkgstoretest: %q is not origin/name/version/release", r.Ident))
			return s
		}
		dir := "hab/pkgs/" + r.Ident
		s.Mkdir(dir)
		switch r.Target {
		case "":
			s.File(dir+"/TARGET", DefaultTarget+"\n")
		case "-":
		default:
			s.File(dir+"/TARGET", r.Target+"\n")
		}
		switch r.IdentFile {
		case "":
			s.File(dir+"/IDENT", r.Ident+"\n")
		case "-":
		default:
			s.File(dir+"/IDENT", r.IdentFile)
		}
		tdeps := r.TDeps
		if tdeps == nil {
			tdeps = s.closure(r.Deps)
		}
		s.tdeps[r.Ident] = tdeps
		if len(r.Deps) > 0 {
			s.File(dir+"/DEPS", strings.Join(r.Deps, "\n")+"\n")
		}
		if len(tdeps) > 0 {
			s.File(dir+"/TDEPS", strings.Join(tdeps, "\n")+"\n")
		}
		s.File(dir+"/MANIFEST", "# "+r.Ident+"\n")
		for name, content := range r.Files {
			s.File(dir+"/"+name, content)
		}
		if r.UninstallHook {
			s.File(dir+"/hooks/uninstall", "#!/bin/sh\necho bye\n")
		}
		if !r.ModTime.IsZero() {
			s.Chtimes(dir, r.ModTime)
		}
	}
	return s
}

// closure returns deps followed by their TDEPS, without duplicates.
func (s *Store) closure(deps []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, d := range deps {
		add(d)
	}
	for _, d := range deps {
		for _, t := range s.tdeps[d] {
			add(t)
		}
	}
	return out
}

// Spec writes hab/sup/default/specs/NAME.spec loading ident, as the
// Supervisor does for a loaded service.
func (s *Store) Spec(name, ident string) *Store {
	return s.File("hab/sup/default/specs/"+name+".spec",
		"ident = \""+ident+"\"\ngroup = \"default\"\nchannel = \"stable\"\ntopology = \"standalone\"\nupdate_strategy = \"none\"\ndesired_state = \"up\"\nbinds = []\n")
}

// Binlink makes a symlink DIR/NAME pointing at target (as Habitat does:
// an absolute path inside the store, e.g. /hab/pkgs/core/x/1/2/bin/x).
func (s *Store) Binlink(dir, name, target string) *Store {
	s.Mkdir(dir)
	return s.Symlink(target, dir+"/"+name)
}

// Binstub writes DIR/NAME.bat as `hab pkg binlink` does on Windows
// (RenderBinstub), running target with env.
func (s *Store) Binstub(dir, name, target string, env map[string]string) *Store {
	return s.File(dir+"/"+name+".bat", RenderBinstub(target, env))
}

// RenderBinstub is a binstub exactly as Habitat renders it:
// habitat-sh/habitat components/hab/static/template_binstub.bat filled in
// by components/hab/src/command/pkg/binlink.rs stub_template, which
// writes "SET KEY=VALUE\n" and a newline (writeln!) for each variable in
// key order (a BTreeMap), ";%PATH%" after PATH's value.
func RenderBinstub(target string, env map[string]string) string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var exports strings.Builder
	for _, k := range keys {
		v := env[k]
		if k == "PATH" {
			v += ";%PATH%"
		}
		exports.WriteString("SET " + k + "=" + v + "\n\n")
	}
	return "@echo off\nREM target='" + target + "'\n" + exports.String() + "\n\"" + target + "\" %*\n"
}

// do runs f on the absolute path of rel unless an error came before.
func (s *Store) do(rel string, f func(p string) error) *Store {
	if s.err != nil {
		return s
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(filepath.Clean(filepath.FromSlash(rel)), "..") {
		s.fail(fmt.Errorf("pkgstoretest: %q is not a path under the FS root", rel))
		return s
	}
	s.fail(f(s.Path(rel)))
	return s
}

func (s *Store) fail(err error) {
	if s.err == nil && err != nil {
		s.err = err
	}
}

// File writes a file (and its parents).
func (s *Store) File(rel, content string) *Store {
	return s.do(rel, func(p string) error {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(content), 0o644)
	})
}

// Mkdir makes a directory (and its parents).
func (s *Store) Mkdir(rel string) *Store {
	return s.do(rel, func(p string) error { return os.MkdirAll(p, 0o755) })
}

// Symlink makes link (relative to the FS root) point at target, verbatim.
func (s *Store) Symlink(target, link string) *Store {
	return s.do(link, func(p string) error {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.Symlink(target, p)
	})
}

// Chmod changes a path's mode.
func (s *Store) Chmod(rel string, mode os.FileMode) *Store {
	return s.do(rel, func(p string) error { return os.Chmod(p, mode) })
}

// Chtimes sets a path's modification (and access) time.
func (s *Store) Chtimes(rel string, t time.Time) *Store {
	return s.do(rel, func(p string) error { return os.Chtimes(p, t, t) })
}

// Remove removes a path (recursively).
func (s *Store) Remove(rel string) *Store {
	// testtool.RemoveAll: os.RemoveAll deletes with POSIX semantics on
	// Windows, which Wine 8.0 does not implement ("Invalid function").
	return s.do(rel, testtool.RemoveAll)
}

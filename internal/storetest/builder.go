package storetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// DefaultTarget is the TARGET written when a Release does not set one.
const DefaultTarget = "x86_64-linux"

// Builder writes a store under an FS root. Every method fails the test on
// an I/O error.
type Builder struct {
	t testing.TB
	// Root is the FS root (the store is Root/hab/pkgs).
	Root string
	// tdeps remembers each release's TDEPS so later releases can compute
	// their closure.
	tdeps map[string][]string
}

// New makes an empty store (hab/pkgs exists) in a fresh temporary
// directory.
func New(t testing.TB) *Builder {
	t.Helper()
	return At(t, t.TempDir())
}

// At makes an empty store under root.
func At(t testing.TB, root string) *Builder {
	t.Helper()
	b := &Builder{t: t, Root: root, tdeps: map[string][]string{}}
	b.Mkdir("hab/pkgs")
	return b
}

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

// Path returns the absolute path of rel under the FS root.
func (b *Builder) Path(rel string) string { return filepath.Join(b.Root, filepath.FromSlash(rel)) }

// PkgPath returns the absolute path of a release directory.
func (b *Builder) PkgPath(ident string) string { return b.Path("hab/pkgs/" + ident) }

// Pkg adds a release with direct deps and a computed TDEPS.
func (b *Builder) Pkg(ident string, deps ...string) *Builder {
	return b.Add(Release{Ident: ident, Deps: deps})
}

// Add writes releases.
func (b *Builder) Add(rels ...Release) *Builder {
	b.t.Helper()
	for _, r := range rels {
		dir := "hab/pkgs/" + r.Ident
		b.Mkdir(dir)
		switch r.Target {
		case "":
			b.File(dir+"/TARGET", DefaultTarget+"\n")
		case "-":
		default:
			b.File(dir+"/TARGET", r.Target+"\n")
		}
		switch r.IdentFile {
		case "":
			b.File(dir+"/IDENT", r.Ident+"\n")
		case "-":
		default:
			b.File(dir+"/IDENT", r.IdentFile)
		}
		tdeps := r.TDeps
		if tdeps == nil {
			tdeps = b.closure(r.Deps)
		}
		b.tdeps[r.Ident] = tdeps
		if len(r.Deps) > 0 {
			b.File(dir+"/DEPS", strings.Join(r.Deps, "\n")+"\n")
		}
		if len(tdeps) > 0 {
			b.File(dir+"/TDEPS", strings.Join(tdeps, "\n")+"\n")
		}
		b.File(dir+"/MANIFEST", "# "+r.Ident+"\n")
		for name, content := range r.Files {
			b.File(dir+"/"+name, content)
		}
		if r.UninstallHook {
			b.File(dir+"/hooks/uninstall", "#!/bin/sh\necho bye\n")
		}
		if !r.ModTime.IsZero() {
			b.Chtimes(dir, r.ModTime)
		}
	}
	return b
}

// closure returns deps followed by their TDEPS, without duplicates.
func (b *Builder) closure(deps []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, d := range deps {
		add(d)
	}
	for _, d := range deps {
		for _, t := range b.tdeps[d] {
			add(t)
		}
	}
	return out
}

// Spec writes hab/sup/default/specs/NAME.spec loading ident.
func (b *Builder) Spec(name, ident string) *Builder {
	return b.File("hab/sup/default/specs/"+name+".spec",
		"ident = \""+ident+"\"\ngroup = \"default\"\nchannel = \"stable\"\ntopology = \"standalone\"\nupdate_strategy = \"none\"\ndesired_state = \"up\"\nbinds = []\n")
}

// Binlink makes a symlink DIR/NAME pointing at target (as Habitat does:
// an absolute path inside the store, e.g. /hab/pkgs/core/x/1/2/bin/x).
func (b *Builder) Binlink(dir, name, target string) *Builder {
	b.Mkdir(dir)
	return b.Symlink(target, dir+"/"+name)
}

// File writes a file (and its parents).
func (b *Builder) File(rel, content string) *Builder {
	b.t.Helper()
	p := b.Path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// Mkdir makes a directory (and its parents).
func (b *Builder) Mkdir(rel string) *Builder {
	b.t.Helper()
	if err := os.MkdirAll(b.Path(rel), 0o755); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// Symlink makes link (relative to the FS root) point at target, verbatim.
func (b *Builder) Symlink(target, link string) *Builder {
	b.t.Helper()
	p := b.Path(link)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// Chmod changes a path's mode.
func (b *Builder) Chmod(rel string, mode os.FileMode) *Builder {
	b.t.Helper()
	if err := os.Chmod(b.Path(rel), mode); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// Chtimes sets a path's modification (and access) time.
func (b *Builder) Chtimes(rel string, t time.Time) *Builder {
	b.t.Helper()
	if err := os.Chtimes(b.Path(rel), t, t); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// Remove removes a path (recursively).
func (b *Builder) Remove(rel string) *Builder {
	b.t.Helper()
	if err := os.RemoveAll(b.Path(rel)); err != nil {
		b.t.Fatal(err)
	}
	return b
}

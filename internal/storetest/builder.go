package storetest

import (
	"os"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
)

// DefaultTarget is the TARGET written when a Release does not set one.
const DefaultTarget = pkgstoretest.DefaultTarget

// Release describes one release directory (pkgstoretest.Release).
type Release = pkgstoretest.Release

// Builder writes a store under an FS root: the public
// pkgstoretest.Store, failing the test on its first error.
type Builder struct {
	t testing.TB
	s *pkgstoretest.Store
	// Root is the FS root (the store is Root/hab/pkgs).
	Root string
	// Target is the TARGET written for a release that names none
	// (DefaultTarget when empty). A test that runs hab-gc with its
	// default target sets it to pkgstore.DefaultTarget(), the machine's:
	// on Windows the store is then laid out as Habitat lays it out there.
	Target string
}

// New makes an empty store (hab/pkgs exists) in a fresh temporary
// directory (testtool.TempDir: one Wine can remove too).
func New(t testing.TB) *Builder {
	t.Helper()
	return At(t, testtool.TempDir(t))
}

// At makes an empty store under root.
func At(t testing.TB, root string) *Builder {
	t.Helper()
	s, err := pkgstoretest.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return &Builder{t: t, s: s, Root: root}
}

// check fails the test on the store's first error.
func (b *Builder) check() *Builder {
	b.t.Helper()
	if err := b.s.Err(); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// Path returns the absolute path of rel under the FS root.
func (b *Builder) Path(rel string) string { return b.s.Path(rel) }

// PkgPath returns the absolute path of a release directory.
func (b *Builder) PkgPath(ident string) string { return b.s.PkgPath(ident) }

// Pkg adds a release with direct deps and a computed TDEPS.
func (b *Builder) Pkg(ident string, deps ...string) *Builder {
	b.t.Helper()
	return b.Add(Release{Ident: ident, Deps: deps})
}

// Add writes releases, those that name no Target for b.Target.
func (b *Builder) Add(rels ...Release) *Builder {
	b.t.Helper()
	for _, r := range rels {
		if r.Target == "" {
			r.Target = b.Target
		}
		b.s.Add(r)
	}
	return b.check()
}

// Spec writes hab/sup/default/specs/NAME.spec loading ident.
func (b *Builder) Spec(name, ident string) *Builder {
	b.t.Helper()
	b.s.Spec(name, ident)
	return b.check()
}

// Binlink makes a symlink DIR/NAME pointing at target.
func (b *Builder) Binlink(dir, name, target string) *Builder {
	b.t.Helper()
	b.s.Binlink(dir, name, target)
	return b.check()
}

// Binstub writes DIR/NAME.bat as `hab pkg binlink` does on Windows
// (pkgstoretest.RenderBinstub).
func (b *Builder) Binstub(dir, name, target string, env map[string]string) *Builder {
	b.t.Helper()
	b.s.Binstub(dir, name, target, env)
	return b.check()
}

// File writes a file (and its parents).
func (b *Builder) File(rel, content string) *Builder {
	b.t.Helper()
	b.s.File(rel, content)
	return b.check()
}

// Mkdir makes a directory (and its parents).
func (b *Builder) Mkdir(rel string) *Builder {
	b.t.Helper()
	b.s.Mkdir(rel)
	return b.check()
}

// Symlink makes link (relative to the FS root) point at target, verbatim.
func (b *Builder) Symlink(target, link string) *Builder {
	b.t.Helper()
	b.s.Symlink(target, link)
	return b.check()
}

// Chmod changes a path's mode.
func (b *Builder) Chmod(rel string, mode os.FileMode) *Builder {
	b.t.Helper()
	b.s.Chmod(rel, mode)
	return b.check()
}

// Chtimes sets a path's modification (and access) time.
func (b *Builder) Chtimes(rel string, t time.Time) *Builder {
	b.t.Helper()
	b.s.Chtimes(rel, t)
	return b.check()
}

// Remove removes a path (recursively).
func (b *Builder) Remove(rel string) *Builder {
	b.t.Helper()
	b.s.Remove(rel)
	return b.check()
}

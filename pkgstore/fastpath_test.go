//go:build unix

package pkgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
)

// damages are the ways a release can differ from the common one the
// scan's fast path reads; each is applied to its own release of the store
// TestFastPathAgreesWithSlowPath builds. dir is the release directory.
var damages = []struct {
	name string
	do   func(t *testing.T, s *pkgstoretest.Store, dir string)
}{
	{"none", func(t *testing.T, s *pkgstoretest.Store, dir string) {}},
	{"target-symlink-inside", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/T", pkgstoretest.DefaultTarget).Remove(dir+"/TARGET").Symlink("T", dir+"/TARGET")
	}},
	{"target-symlink-dangling", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.Remove(dir+"/TARGET").Symlink("nowhere", dir+"/TARGET")
	}},
	{"target-missing", func(t *testing.T, s *pkgstoretest.Store, dir string) { s.Remove(dir + "/TARGET") }},
	{"target-foreign", func(t *testing.T, s *pkgstoretest.Store, dir string) { s.File(dir+"/TARGET", "aarch64-linux\n") }},
	{"target-invalid", func(t *testing.T, s *pkgstoretest.Store, dir string) { s.File(dir+"/TARGET", "not a target\n") }},
	{"target-crlf", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/TARGET", pkgstoretest.DefaultTarget+"\r\n")
	}},
	{"target-padded", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/TARGET", "  "+pkgstoretest.DefaultTarget+" \n\n")
	}},
	{"target-empty", func(t *testing.T, s *pkgstoretest.Store, dir string) { s.File(dir+"/TARGET", "") }},
	{"target-dir", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.Remove(dir + "/TARGET").Mkdir(dir + "/TARGET")
	}},
	{"target-fifo", func(t *testing.T, s *pkgstoretest.Store, dir string) { mkfifo(t, s.Path(dir+"/TARGET")) }},
	{"target-too-large", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/TARGET", pkgstoretest.DefaultTarget+strings.Repeat(" ", 2<<20))
	}},
	{"target-chardev", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		mknod(t, s.Path(dir+"/TARGET"), unix.S_IFCHR, 1, 5)
	}},
	{"ident-socket", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		mknod(t, s.Path(dir+"/IDENT"), unix.S_IFSOCK, 0, 0)
	}},
	{"ident-too-large", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/IDENT", strings.TrimPrefix(dir, "hab/pkgs/")+strings.Repeat(" ", 2<<20))
	}},
	{"deps-chardev", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		mknod(t, s.Path(dir+"/DEPS"), unix.S_IFCHR, 1, 5)
	}},
	{"tdeps-fifo", func(t *testing.T, s *pkgstoretest.Store, dir string) { mkfifo(t, s.Path(dir+"/TDEPS")) }},
	{"tdeps-socket", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		mknod(t, s.Path(dir+"/TDEPS"), unix.S_IFSOCK, 0, 0)
	}},
	{"tdeps-too-large", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/TDEPS", strings.Repeat("core/dep/1.0.0/20200101000000\n", 40000))
	}},
	{"ident-missing", func(t *testing.T, s *pkgstoretest.Store, dir string) { s.Remove(dir + "/IDENT") }},
	{"ident-mismatch", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/IDENT", "core/other/1.0.0/20200101000000\n")
	}},
	{"ident-symlink-inside", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/I", strings.TrimPrefix(dir, "hab/pkgs/")).Remove(dir+"/IDENT").Symlink("I", dir+"/IDENT")
	}},
	{"ident-fifo", func(t *testing.T, s *pkgstoretest.Store, dir string) { mkfifo(t, s.Path(dir+"/IDENT")) }},
	{"ident-dir", func(t *testing.T, s *pkgstoretest.Store, dir string) { s.Remove(dir + "/IDENT").Mkdir(dir + "/IDENT") }},
	{"deps-symlink-inside", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/D", "core/dep/1.0.0/20200101000000\n").Remove(dir+"/DEPS").Symlink("D", dir+"/DEPS")
	}},
	{"deps-symlink-outside", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.Remove(dir+"/DEPS").Symlink("../../../../core/dep/1.0.0/20200101000000/IDENT", dir+"/DEPS")
	}},
	{"deps-fifo", func(t *testing.T, s *pkgstoretest.Store, dir string) { mkfifo(t, s.Path(dir+"/DEPS")) }},
	{"deps-dir", func(t *testing.T, s *pkgstoretest.Store, dir string) { s.Remove(dir + "/DEPS").Mkdir(dir + "/DEPS") }},
	{"deps-too-large", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/DEPS", strings.Repeat("core/dep/1.0.0/20200101000000\n", 40000))
	}},
	{"deps-bad-line", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/DEPS", "core/dep/1.0.0/20200101000000\nnot an ident\n")
	}},
	{"deps-blank-line", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/DEPS", "core/dep/1.0.0/20200101000000\n\ncore/dep/1.0.0/20200101000000\n")
	}},
	{"deps-crlf", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/DEPS", "core/dep/1.0.0/20200101000000\r\n")
	}},
	{"deps-padded", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/DEPS", "\n  core/dep/1.0.0/20200101000000  \n\n")
	}},
	{"deps-many-lines", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/DEPS", strings.Repeat("core/dep/1.0.0/20200101000000\n", 400))
	}},
	{"deps-empty", func(t *testing.T, s *pkgstoretest.Store, dir string) { s.File(dir+"/DEPS", "") }},
	{"deps-missing-dependency", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/DEPS", "core/gone/1.0.0/20200101000000\n")
	}},
	{"deps-long-line", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/DEPS", strings.Repeat("x", 300)+"\n")
	}},
	{"tdeps-dangling-symlink", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.Remove(dir+"/TDEPS").Symlink("nowhere", dir+"/TDEPS")
	}},
	{"tdeps-not-utf8", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/TDEPS", "core/dep/1.0.0/2020\xff\n")
	}},
	{"hooks", func(t *testing.T, s *pkgstoretest.Store, dir string) { s.File(dir+"/hooks/uninstall", "#!/bin/sh\n") }},
	{"subtree", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.File(dir+"/bin/tool", strings.Repeat("x", 10000)).File(dir+"/lib/a/b/c", "y").Symlink("../bin/tool", dir+"/lib/link")
	}},
	{"release-symlink", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.Remove(dir).Symlink("../../../../core/dep/1.0.0/20200101000000", dir)
	}},
	{"release-file", func(t *testing.T, s *pkgstoretest.Store, dir string) { s.Remove(dir).File(dir, "x") }},
	{"release-fifo", func(t *testing.T, s *pkgstoretest.Store, dir string) { s.Remove(dir); mkfifo(t, s.Path(dir)) }},
	{"release-leftover-sibling", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		// Habitat's nested layout (storetest.Installer): a newer release
		// unpacked as an FS root into VERSION/.hab-pkg-install-RELEASEXXXXXX.
		v := dir[:strings.LastIndex(dir, "/")]
		s.File(v+"/"+pkgstore.InstallTempPrefix+"-20210101000000abcdef/"+v+"/20210101000000/TDEPS", "core/dep/1.0.0/20200101000000\n")
	}},
	{"release-debris-sibling", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		s.Mkdir(dir[:strings.LastIndex(dir, "/")] + "/" + pkgstore.DebrisPrefix + "1")
	}},
	{"version-file-sibling", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		v := dir[:strings.LastIndex(dir, "/")]
		s.File(v[:strings.LastIndex(v, "/")]+"/9.9.9", "x")
	}},
	{"version-symlink-sibling", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		v := dir[:strings.LastIndex(dir, "/")]
		s.Symlink(v[strings.LastIndex(v, "/")+1:], v[:strings.LastIndex(v, "/")]+"/8.8.8")
	}},
	{"release-odd-name-sibling", func(t *testing.T, s *pkgstoretest.Store, dir string) {
		v := dir[:strings.LastIndex(dir, "/")]
		s.File(v+"/2020 0101/TARGET", pkgstoretest.DefaultTarget).File(v+"/2020 0101/IDENT", "x")
	}},
}

// normalized is what a scan found, with Refs (which depend on the order
// scan goroutines interned lines) replaced by idents.
func normalized(inv *pkgstore.Inventory) string {
	var b strings.Builder
	for _, r := range inv.Releases {
		fmt.Fprintf(&b, "release %s size=%d damaged=%v mtime=%v ctime=%v dev=%d ino=%d\n", r.Ident, r.Size, r.Damaged,
			r.ModTime.UnixNano(), r.ChangeTime.UnixNano(), r.Dev, r.Ino)
		for _, d := range r.Deps {
			fmt.Fprintf(&b, "  dep %s\n", inv.Ident(d))
		}
		for _, d := range r.TDeps {
			fmt.Fprintf(&b, "  tdep %s\n", inv.Ident(d))
		}
	}
	for _, p := range inv.Problems {
		fmt.Fprintf(&b, "problem %+v\n", p)
	}
	fmt.Fprintf(&b, "opaque %+v\ninstalling %+v\ndebris %q\n", inv.Opaque, inv.Installing, inv.Debris)
	return b.String()
}

// damagedStore builds a store holding core/dep and, for each entry i of
// damages, core/pII/1.0.i/20200101000000 needing it, damaged that way.
func damagedStore(t *testing.T) (string, *pkgstoretest.Store) {
	t.Helper()
	root := testtool.TempDir(t)
	s, err := pkgstoretest.New(root)
	if err != nil {
		t.Fatal(err)
	}
	s.Pkg("core/dep/1.0.0/20200101000000")
	for i, d := range damages {
		id := fmt.Sprintf("core/p%02d/1.0.%d/20200101000000", i, i)
		s.Pkg(id, "core/dep/1.0.0/20200101000000")
		d.do(t, s, "hab/pkgs/"+id)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return root, s
}

// addNewest gives each damaged package of damagedStore a newer, sound
// release (9.0.0), so that the damaged one is beyond the newest.
func addNewest(t *testing.T, s *pkgstoretest.Store) {
	t.Helper()
	for i := range damages {
		s.Pkg(fmt.Sprintf("core/p%02d/9.0.0/20200101000000", i))
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestFastPathAgreesWithSlowPath scans one store holding a release for
// each entry of damages with the fast path (safeio.DirFD) and with the
// os.Root path alone, with and without sizes, and requires the same
// inventory: the same releases, dependencies, times, identities, sizes
// and problems.
func TestFastPathAgreesWithSlowPath(t *testing.T) {
	root, s := damagedStore(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, sizes := range []bool{false, true} {
		t.Run(fmt.Sprintf("sizes=%v", sizes), func(t *testing.T) {
			opts := pkgstore.Options{Target: pkgstoretest.DefaultTarget, Sizes: sizes, Now: now}
			fast, err := pkgstore.Scan(context.Background(), root, opts)
			if err != nil {
				t.Fatal(err)
			}
			slow, err := pkgstore.Scan(context.Background(), root, pkgstore.WithSlowPath(opts))
			if err != nil {
				t.Fatal(err)
			}
			f, sl := normalized(fast), normalized(slow)
			if f != sl {
				t.Errorf("fast and slow scans differ:\n--- fast\n%s\n--- slow\n%s", f, sl)
			}
			if len(fast.Releases) < len(damages)/2 {
				t.Errorf("only %d releases found; the store is not what the test means", len(fast.Releases))
			}
		})
	}
	// Measured while the scan has them open (MeasureBeyond), the
	// releases beyond the newest of their package have the sizes a scan
	// for sizes finds; the newest are not measured.
	t.Run("MeasureBeyond", func(t *testing.T) {
		addNewest(t, s)
		opts := pkgstore.Options{Target: pkgstoretest.DefaultTarget, Now: now}
		sized := opts
		sized.Sizes = true
		want, err := pkgstore.Scan(context.Background(), root, pkgstore.WithSlowPath(sized))
		if err != nil {
			t.Fatal(err)
		}
		opts.MeasureBeyond = 1
		got, err := pkgstore.Scan(context.Background(), root, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Releases) != len(want.Releases) {
			t.Fatalf("%d releases, want %d", len(got.Releases), len(want.Releases))
		}
		measured := 0
		for i, r := range got.Releases {
			newest := strings.Contains(r.Ident.Version, "9.0.0") || r.Ident.Name == "dep"
			switch {
			case newest && r.Size != -1:
				t.Errorf("%s: newest of its package, measured (%d)", r.Ident, r.Size)
			case !newest && r.Size != -1:
				measured++
				if r.Size != want.Releases[i].Size {
					t.Errorf("%s: measured %d while open, %d by a scan for sizes", r.Ident, r.Size, want.Releases[i].Size)
				}
			}
		}
		// Those the fast path reads (the others go the slow way and are
		// measured afterwards, by MeasureSizes).
		for _, name := range []string{"none", "subtree", "hooks", "deps-many-lines", "deps-padded", "deps-empty", "target-padded", "release-debris-sibling"} {
			for i, d := range damages {
				if d.name != name {
					continue
				}
				r := got.Installed(pkgstore.Ident{Origin: "core", Name: fmt.Sprintf("p%02d", i), Version: fmt.Sprintf("1.0.%d", i), Release: "20200101000000"})
				if r == nil || r.Size <= 0 {
					t.Errorf("%s: not measured while open (%v)", name, r)
				}
			}
		}
		if measured < 10 {
			t.Errorf("only %d releases measured while open", measured)
		}
	})

	// Each release reads the same alone as in the whole store, and
	// MeasureSizes agrees with a scan's sizes.
	store := storetest.Open(t, root)
	inv, err := store.Scan(context.Background(), pkgstore.Options{Target: pkgstoretest.DefaultTarget, Sizes: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for _, r := range inv.Releases {
		want[r.Ident.String()] = r.Size
		r.Size = 0
	}
	if err := store.MeasureSizes(context.Background(), inv.Releases, 3); err != nil {
		t.Fatal(err)
	}
	for _, r := range inv.Releases {
		if r.Size != want[r.Ident.String()] || r.Size <= 0 {
			t.Errorf("%s: MeasureSizes %d, scan %d", r.Ident, r.Size, want[r.Ident.String()])
		}
		if got := store.Size(r.Ident); got != r.Size {
			t.Errorf("%s: Size %d, MeasureSizes %d", r.Ident, got, r.Size)
		}
	}
}

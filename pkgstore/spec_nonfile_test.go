//go:build unix

package pkgstore_test

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// The Supervisor lists its specs as glob("SPECS/*.spec") filtered by
// Path::is_file (components/sup/src/manager/spec_dir.rs, spec_files), which
// follows a symlink: a directory, FIFO, socket or device named *.spec, and a
// symlink to one of them, loads nothing. The scan skips them, with no
// problem, and never blocks on them.
func TestScanSkipsSpecsThatAreNotFiles(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"directory", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			// Even one holding what looks like a spec.
			if err := os.WriteFile(filepath.Join(p, "x.spec"), []byte("ident = \"core/gone\"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"FIFO", func(t *testing.T, p string) {
			if err := unix.Mkfifo(p, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}},
		{"socket", func(t *testing.T, p string) {
			l, err := net.ListenUnix("unix", &net.UnixAddr{Name: p, Net: "unix"})
			if err != nil {
				t.Skipf("unix socket: %v", err)
			}
			l.SetUnlinkOnClose(false)
			l.Close()
		}},
		{"symlink to a directory", func(t *testing.T, p string) {
			d := filepath.Join(filepath.Dir(p), "..", "elsewhere")
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../elsewhere", p); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg("core/a/1/20200101000000").Spec("a", "core/a")
			c.make(t, b.Path("hab/sup/default/specs/b.spec"))
			inv := bounded(t, 10*time.Second, func() *pkgstore.Inventory { return scan(t, b.Root) })
			for _, p := range inv.Problems {
				t.Errorf("problem %v", p)
			}
			if len(inv.Services) != 1 || inv.Services[0].Name != "a" {
				t.Errorf("services %+v, want only a", inv.Services)
			}
		})
	}
}

// A symlinked spec the Supervisor may read (to a regular file, which hab-gc
// does not follow, or to nothing yet: a volume not mounted) stays a
// blocking problem.
func TestScanSymlinkedSpecMayLoad(t *testing.T) {
	for _, target := range []string{"../real.spec", "../missing.spec"} {
		t.Run(target, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg("core/a/1/20200101000000").File("hab/sup/default/real.spec", "ident = \"core/a\"\n").
				Symlink(target, "hab/sup/default/specs/a.spec")
			inv := scan(t, b.Root)
			for _, p := range inv.Problems {
				if p.Path == "hab/sup/default/specs/a.spec" && p.Blocking && p.Kind == pkgstore.ProblemSpec {
					return
				}
			}
			t.Fatalf("no blocking bad-spec for a.spec: %v", inv.Problems)
		})
	}
}

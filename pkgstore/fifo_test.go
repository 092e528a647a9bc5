//go:build unix

package pkgstore_test

import (
	"errors"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// mkfifo replaces whatever is at path with a FIFO.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// hab/pkgs itself a FIFO: Open fails at once, naming it.
func TestOpenStoreThatIsAFIFO(t *testing.T) {
	b := storetest.New(t)
	mkfifo(t, b.Path("hab/pkgs"))
	err := bounded(t, 10*time.Second, func() error {
		st, err := pkgstore.Open(b.Root)
		if err == nil {
			st.Close()
		}
		return err
	})
	if !errors.Is(err, pkgstore.ErrNoStore) || !strings.Contains(err.Error(), "hab/pkgs") {
		t.Fatalf("got %v, want ErrNoStore naming hab/pkgs", err)
	}
}

// A FIFO wherever the scan reads a file or a directory is a problem
// naming it; the scan never blocks on it. A FIFO named *.spec is no
// problem: the Supervisor skips what is not a file (see
// TestScanSkipsSpecsThatAreNotFiles), and so does the scan; nor is a FIFO
// at hab/cache/artifacts or hab/studios (read as absent).
func TestScanNeverBlocksOnAFIFO(t *testing.T) {
	const rel = "core/a/1/20200101000000"
	cases := []struct {
		name, path string // path relative to the FS root
		blocking   bool
		skipped    bool // no problem: Habitat skips it too
	}{
		{"specs directory", "hab/sup/default/specs", true, false},
		{"spec file", "hab/sup/default/specs/a.spec", false, true},
		{"binlink directory", "bin", true, false},
		{"DEPS", "hab/pkgs/" + rel + "/DEPS", true, false},
		{"TARGET", "hab/pkgs/" + rel + "/TARGET", false, false},
		// No cache, no Studios: nothing fetched or built there to
		// protect, as when they are absent.
		{"artifact cache", "hab/cache/artifacts", false, true},
		{"Studios", "hab/studios", false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg("core/b/1/20200101000000").Pkg(rel, "core/b/1/20200101000000").Spec("a", "core/a").
				Binlink("bin", "b", "/hab/pkgs/core/b/1/20200101000000/MANIFEST")
			b.Mkdir(path.Dir(c.path))
			mkfifo(t, b.Path(c.path))
			inv := bounded(t, 10*time.Second, func() *pkgstore.Inventory { return scan(t, b.Root) })
			for _, p := range inv.Problems {
				if p.Path == c.path && c.skipped {
					t.Fatalf("problem %v; Habitat skips it, so should the scan", p)
				}
				if p.Path == c.path {
					if p.Blocking != c.blocking {
						t.Errorf("problem %v: blocking %v, want %v", p, p.Blocking, c.blocking)
					}
					return
				}
			}
			if !c.skipped {
				t.Fatalf("no problem names %s: %v", c.path, inv.Problems)
			}
		})
	}
}

// InferTarget never blocks on a FIFO: hab/pkgs a FIFO (// it hung in openat, before any command could say the store is unusable)
// is an error naming it, and a FIFO at a level it lists or a TARGET it
// reads is not counted.
func TestInferTargetNeverBlocksOnAFIFO(t *testing.T) {
	const hab = "chef/hab/1.6.0/20200101000000"
	for _, at := range []string{"hab/pkgs", "hab/pkgs/chef/hab", "hab/pkgs/chef/hab/1.6.0", "hab/pkgs/" + hab, "hab/pkgs/" + hab + "/TARGET"} {
		t.Run(at, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg(hab)
			mkfifo(t, b.Path(at))
			type result struct {
				target string
				err    error
			}
			r := bounded(t, 10*time.Second, func() result {
				target, _, err := pkgstore.InferTarget(b.Root)
				return result{target, err}
			})
			if at == "hab/pkgs" {
				if r.err == nil || !strings.Contains(r.err.Error(), "hab/pkgs") || !strings.Contains(r.err.Error(), "not a directory") {
					t.Fatalf("got %q, %v; want an error naming hab/pkgs as not a directory", r.target, r.err)
				}
				return
			}
			if r.err != nil || r.target != pkgstore.DefaultTarget() {
				t.Fatalf("got %q, %v; want this machine's %s", r.target, r.err, pkgstore.DefaultTarget())
			}
		})
	}
}

//go:build unix

package safeio_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// TestOpenDirBeneath walks to hab/sup/default/hab-gc below an FS root,
// creating it, with each component in turn a symlink to a directory
// outside (refused, naming it, nothing made outside), a symlink inside
// the root (refused too), or a file (ENOTDIR); the FS root itself may be
// a symlink.
func TestOpenDirBeneath(t *testing.T) {
	const rel = "hab/sup/default/hab-gc"
	parts := strings.Split(rel, "/")
	for i := range parts {
		link := strings.Join(parts[:i+1], "/")
		for _, inside := range []bool{false, true} {
			t.Run(link+map[bool]string{false: " outside", true: " inside"}[inside], func(t *testing.T) {
				root, outside := t.TempDir(), t.TempDir()
				target := outside
				if inside {
					target = filepath.Join(root, "elsewhere")
					os.Mkdir(target, 0o755)
				}
				if err := os.MkdirAll(filepath.Join(root, filepath.Dir(link)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
					t.Fatal(err)
				}
				for _, create := range []bool{false, true} {
					d, err := safeio.OpenDirBeneath(root, rel, create)
					if err == nil {
						d.Close()
						t.Fatalf("create=%v: opened through the symlink %s", create, link)
					}
					var se *safeio.SymlinkError
					if !errors.As(err, &se) || !errors.Is(err, safeio.ErrSymlink) || se.Path != filepath.Join(root, link) || se.Target != target {
						t.Fatalf("create=%v: %v, want a SymlinkError naming %s -> %s", create, err, filepath.Join(root, link), target)
					}
					if _, err := safeio.OpenRootBeneath(root, rel, create); !errors.Is(err, safeio.ErrSymlink) {
						t.Fatalf("OpenRootBeneath create=%v: %v, want ErrSymlink", create, err)
					}
				}
				if ents, _ := os.ReadDir(target); len(ents) != 0 {
					t.Fatalf("%s holds %d entries, want none: written through the symlink", target, len(ents))
				}
			})
		}
	}
	t.Run("file", func(t *testing.T) {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, "hab"), 0o755)
		os.WriteFile(filepath.Join(root, "hab/sup"), nil, 0o644)
		if _, err := safeio.OpenDirBeneath(root, rel, true); !errors.Is(err, syscall.ENOTDIR) {
			t.Fatalf("%v, want ENOTDIR", err)
		}
	})
	t.Run("create", func(t *testing.T) {
		real := t.TempDir()
		root := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(real, root); err != nil { // the FS root itself: the user's choice
			t.Fatal(err)
		}
		if _, err := safeio.OpenDirBeneath(root, rel, false); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("without create: %v, want ErrNotExist", err)
		}
		r, err := safeio.OpenRootBeneath(root, rel, true)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if fi, err := os.Lstat(filepath.Join(real, rel)); err != nil || !fi.IsDir() {
			t.Fatalf("%s not made: %v", rel, err)
		}
		if err := safeio.CheckBeneath(root, rel, r); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("bad", func(t *testing.T) {
		for _, rel := range []string{"../x", "hab/../x", "/hab", "hab//sup", "./hab"} {
			if _, err := safeio.OpenDirBeneath(t.TempDir(), rel, true); !errors.Is(err, syscall.EINVAL) {
				t.Errorf("%q: %v, want EINVAL", rel, err)
			}
		}
	})
}

//go:build linux

package onefs_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/onefs"
)

// TestChainOpensOnlyWhatDiffers: entering a sibling of the last directory
// opens that one directory; the ones shared are kept (and checked).
func TestChainOpensOnlyWhatDiffers(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"o/n/1", "o/n/2", "o/m/1"} {
		write(t, root+"/"+d+"/rel/FILE", "x")
	}
	c := onefs.NewChain(open(t, root))
	defer c.Close()
	if err := c.Enter("o/n/1"); err != nil {
		t.Fatal(err)
	}
	first := c.Ops()
	if err := c.Enter("o/n/2"); err != nil {
		t.Fatal(err)
	}
	// Two checks of the kept links (o, o/n) and one open and fstat.
	if got := c.Ops() - first; got != 4 {
		t.Errorf("entering a sibling took %d calls, want 4", got)
	}
	if c.Path() != "o/n/2" {
		t.Errorf("Path %q", c.Path())
	}
	st, err := c.Lstat("rel")
	if err != nil || st.Mode&0o170000 != 0o040000 {
		t.Fatalf("Lstat rel: %v %o", err, st.Mode)
	}
	if err := c.Enter("o/m/1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Enter("."); err != nil || c.Path() != "." {
		t.Fatalf("Enter . : %v, %q", err, c.Path())
	}
	if err := c.Enter("o/../o"); err == nil {
		t.Error("Enter accepted ..")
	}
}

// TestChainRefusesAMovedDirectory: a directory the chain holds is moved
// out of the tree and a symlink to it put in its place, at each level:
// nothing outside the tree is renamed or deleted, and the chain says
// ErrChanged.
func TestChainRefusesAMovedDirectory(t *testing.T) {
	for _, level := range []string{"o", "o/n", "o/n/1"} {
		t.Run(level, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			write(t, root+"/o/n/1/rel/FILE", "precious")
			c := onefs.NewChain(open(t, root))
			defer c.Close()
			if err := c.Enter("o/n/1"); err != nil {
				t.Fatal(err)
			}
			moved := filepath.Join(outside, "moved")
			if err := os.Rename(filepath.Join(root, level), moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, filepath.Join(root, level)); err != nil {
				t.Fatal(err)
			}
			if err := c.Rename("rel", "other"); !errors.Is(err, onefs.ErrChanged) {
				t.Errorf("Rename: %v, want ErrChanged", err)
			}
			if err := c.Enter("o/n/1"); err == nil {
				t.Errorf("Enter through a symlink at %s succeeded", level)
			}
			c.RemoveAll("rel")
			if n := c.PruneEmpty(); n != 0 {
				t.Errorf("PruneEmpty removed %d", n)
			}
			var found bool
			filepath.Walk(outside, func(p string, fi os.FileInfo, err error) error {
				if err == nil && fi.Name() == "FILE" {
					found = true
				}
				return nil
			})
			if !found {
				t.Error("the file moved outside was renamed or deleted")
			}
		})
	}
}

// TestChainReplacedByAnotherDirectory: a held directory replaced by
// another real directory (same name, another inode) fails the check.
func TestChainReplacedByAnotherDirectory(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	write(t, root+"/o/n/rel/FILE", "x")
	c := onefs.NewChain(open(t, root))
	defer c.Close()
	if err := c.Enter("o/n"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(root+"/o/n", outside+"/n"); err != nil {
		t.Fatal(err)
	}
	write(t, root+"/o/n/rel/FILE", "y")
	if err := c.RemoveAll("rel"); !errors.Is(err, onefs.ErrChanged) {
		t.Fatalf("RemoveAll: %v, want ErrChanged", err)
	}
	if _, err := os.Stat(outside + "/n/rel/FILE"); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(root + "/o/n/rel/FILE"); err != nil {
		t.Error(err)
	}
}

// TestChainRemovesAndPrunes: RemoveAll, Rename and Sync act on the last
// directory; PruneEmpty removes the empty directories up to the root
// (never the root) and stops at one that is not empty.
func TestChainRemovesAndPrunes(t *testing.T) {
	root := t.TempDir()
	write(t, root+"/o/n/1/rel/a/FILE", "x")
	write(t, root+"/o/keep", "x")
	c := onefs.NewChain(open(t, root))
	defer c.Close()
	if err := c.Enter("o/n/1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rename("rel", "gone"); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveAll("gone"); err != nil {
		t.Fatal(err)
	}
	if n := c.PruneEmpty(); n != 2 {
		t.Errorf("PruneEmpty removed %d, want 2 (o/n/1, o/n)", n)
	}
	if c.Path() != "o" {
		t.Errorf("the chain ends at %q, want o", c.Path())
	}
	if _, err := os.Stat(root + "/o/keep"); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(root + "/o/n"); !os.IsNotExist(err) {
		t.Errorf("o/n: %v", err)
	}
}

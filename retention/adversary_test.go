package retention_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestApplySwapsForSymlinks: between the plan and each step of Apply, an
// adversary replaces a directory on the way to a removal (the release,
// its hidden name, its version, name or origin directory) with a symlink
// to a copy outside the store. Nothing outside the store is ever deleted.
func TestApplySwapsForSymlinks(t *testing.T) {
	testtool.NeedSymlinks(t)
	cases := []struct {
		stage string
		// target returns the store-relative directory to swap, given the
		// release's and its hidden name's store-relative paths.
		target func(rel, hidden string) string
	}{
		{"checked", func(rel, _ string) string { return rel }},
		{"checked", func(rel, _ string) string { return filepath.Dir(rel) }},
		{"checked", func(rel, _ string) string { return filepath.Dir(filepath.Dir(rel)) }},
		{"checked", func(rel, _ string) string { return filepath.Dir(filepath.Dir(filepath.Dir(rel))) }},
		{"hidden", func(_, hidden string) string { return hidden }},
		{"hidden", func(_, hidden string) string { return filepath.Dir(hidden) }},
		{"hidden", func(_, hidden string) string { return filepath.Dir(filepath.Dir(hidden)) }},
		{"deleting", func(_, hidden string) string { return hidden }},
		{"deleting", func(_, hidden string) string { return filepath.Dir(hidden) }},
		{"deleting", func(_, hidden string) string { return filepath.Dir(filepath.Dir(filepath.Dir(hidden))) }},
		{"removing", func(_, hidden string) string { return hidden }},
		{"removing", func(_, hidden string) string { return filepath.Dir(hidden) }},
		{"removing", func(_, hidden string) string { return filepath.Dir(filepath.Dir(filepath.Dir(hidden))) }},
	}
	for i, c := range cases {
		t.Run(c.stage+"/"+itoa(i), func(t *testing.T) {
			b := base(t)
			p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
			pkgs := filepath.Join(b.Root, "hab", "pkgs")
			outside := testtool.TempDir(t)
			var precious []string
			swapped := ""
			opts := fast
			retention.SetHook(&opts, func(stage string, id pkgstore.Ident, hidden string) {
				if stage != c.stage || id.String() != redis2 || swapped != "" {
					return
				}
				rel := filepath.Join(strings.Split(redis2, "/")...)
				dir := c.target(rel, hidden)
				// Move the directory out of the store and put a symlink to
				// it in its place: everything under it now lies outside.
				moved := filepath.Join(outside, "moved")
				if err := os.Rename(filepath.Join(pkgs, dir), moved); err != nil {
					t.Fatalf("swap %s: %v", dir, err)
				}
				if err := os.Symlink(moved, filepath.Join(pkgs, dir)); err != nil {
					t.Fatal(err)
				}
				filepath.Walk(moved, func(p string, fi os.FileInfo, err error) error {
					if err == nil && fi.Mode().IsRegular() {
						precious = append(precious, p)
					}
					return nil
				})
				swapped = dir
			})
			s := storetest.Open(t, b.Root)
			res, err := p.Apply(t.Context(), s, opts)
			if swapped == "" {
				t.Fatalf("stage %s never reached for %s (err %v)", c.stage, redis2, err)
			}
			if len(precious) == 0 {
				t.Fatal("nothing moved outside")
			}
			for _, f := range precious {
				if _, err := os.Lstat(f); err != nil {
					t.Errorf("%s (outside the store, after swapping %s for a symlink) was deleted: %v", f, swapped, err)
				}
			}
			_ = res
		})
	}
}

// TestApplySwapForSymlinkToNeeded: the release being removed is replaced,
// at each stage, by a symlink to a release that is kept: the kept release
// is untouched.
func TestApplySwapForSymlinkToNeeded(t *testing.T) {
	testtool.NeedSymlinks(t)
	for _, stage := range []string{"checked", "hidden", "deleting", "removing"} {
		t.Run(stage, func(t *testing.T) {
			b := base(t)
			p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
			pkgs := filepath.Join(b.Root, "hab", "pkgs")
			kept := b.PkgPath(glibc2)
			before := tree(t, kept)
			done := false
			opts := fast
			retention.SetHook(&opts, func(st string, id pkgstore.Ident, hidden string) {
				if st != stage || id.String() != redis2 || done {
					return
				}
				name := filepath.Join(strings.Split(redis2, "/")...)
				if stage != "checked" {
					name = hidden
				}
				full := filepath.Join(pkgs, name)
				if err := testtool.RemoveAll(full); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(kept, full); err != nil {
					t.Fatal(err)
				}
				done = true
			})
			s := storetest.Open(t, b.Root)
			p.Apply(t.Context(), s, opts)
			if !done {
				t.Fatalf("stage %s never reached", stage)
			}
			if after := tree(t, kept); after != before {
				t.Errorf("the kept release %s changed:\nbefore %s\nafter  %s", glibc2, before, after)
			}
		})
	}
}

// tree lists the files under dir.
func tree(t *testing.T, dir string) string {
	var names []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			names = append(names, strings.TrimPrefix(p, dir))
		}
		return nil
	})
	return strings.Join(names, " ")
}

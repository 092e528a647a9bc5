package pkgstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestDanglingRootDirs: the specs directory or a binlink directory (or a
// directory on the way to it) that is a symlink to something that does
// not exist (a volume not mounted yet) is not "no loaded services" or "no
// binlinks": what they protect is unknown, a blocking problem naming it.
// A directory that is simply absent is no problem.
func TestDanglingRootDirs(t *testing.T) {
	testtool.NeedSymlinks(t)
	cases := []struct {
		name, link string // FS-root-relative symlink to a missing target ("" for none)
		problem    string // the problem's path; "" for none
	}{
		{"no specs directory", "", ""},
		{"specs directory dangling", "hab/sup/default/specs", "hab/sup/default/specs"},
		{"hab/sup dangling", "hab/sup", "hab/sup/default/specs"},
		{"binlink directory dangling", "bin", "bin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg("core/a/1/20200101000000")
			if c.link != "" {
				p := b.Path(c.link)
				os.RemoveAll(p)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(testtool.TempDir(t), "not-mounted"), p); err != nil {
					t.Fatal(err)
				}
			}
			inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{BinlinkDirs: []string{"bin"}})
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, p := range inv.Problems {
				found = append(found, p.Path+": "+p.Message)
				if c.problem != "" && p.Path == c.problem && p.Blocking && strings.Contains(p.Message, "does not exist") {
					return
				}
			}
			if c.problem != "" {
				t.Fatalf("problems %q; want a blocking one at %s saying its target does not exist", found, c.problem)
			}
			if len(found) > 0 {
				t.Fatalf("problems %q; want none", found)
			}
		})
	}
}

// TestDanglingMetadata: a DEPS or TDEPS that is a symlink to nothing is
// not "no dependencies": what the release needs is unknown, a blocking
// problem naming it.
func TestDanglingMetadata(t *testing.T) {
	testtool.NeedSymlinks(t)
	for _, file := range []string{"DEPS", "TDEPS"} {
		t.Run(file, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg("core/dep/1/20200101000000")
			b.Pkg("core/app/1/20200101000000", "core/dep/1/20200101000000")
			p := b.Path("hab/pkgs/core/app/1/20200101000000/" + file)
			os.Remove(p)
			if err := os.Symlink("nothing-here", p); err != nil {
				t.Fatal(err)
			}
			inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, pr := range inv.Problems {
				found = append(found, pr.String())
				if pr.Path == "hab/pkgs/core/app/1/20200101000000/"+file && pr.Blocking {
					return
				}
			}
			t.Fatalf("problems %q; want a blocking one at %s", found, file)
		})
	}
}

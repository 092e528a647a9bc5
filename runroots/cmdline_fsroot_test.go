//go:build linux

package runroots_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestHabInstallCommandOfAnotherStore: a `hab pkg install` running is an
// install into the store of its own FS root, Habitat's FS_ROOT_PATH: the
// FS_ROOT variable of its environment, else "/" (components/core/src/fs.rs;
// an empty or relative FS_ROOT is taken from its working directory). One
// into another store (a Studio's, a test's, another FS root's) holds no
// removal here; one into this store by any path to it (a symlink, a
// relative FS_ROOT) does. Before, any `hab pkg install` on the machine held
// every store's removals: tests installing into their own temporary stores
// made others' fail, and a fleet's Studio builds stalled the host's prune.
func TestHabInstallCommandOfAnotherStore(t *testing.T) {
	exe := testtool.Executable(t)
	base := os.Environ()
	clean := base[:0:0]
	for _, e := range base {
		if !strings.HasPrefix(e, "FS_ROOT=") {
			clean = append(clean, e)
		}
	}
	for _, tc := range []struct {
		name string
		// env gives the helper's FS_ROOT (nil: unset) and dir its working
		// directory, from this store's FS root and another's.
		env   func(root, other, link string) []string
		dir   func(root string) string
		holds bool
	}{
		{"FS_ROOT this store", func(root, _, _ string) []string { return []string{"FS_ROOT=" + root} }, nil, true},
		{"FS_ROOT through a symlink", func(_, _, link string) []string { return []string{"FS_ROOT=" + link} }, nil, true},
		{"FS_ROOT with a trailing slash", func(root, _, _ string) []string { return []string{"FS_ROOT=" + root + "/"} }, nil, true},
		{"FS_ROOT relative", func(root, _, _ string) []string { return []string{"FS_ROOT=" + filepath.Base(root)} },
			func(root string) string { return filepath.Dir(root) }, true},
		{"FS_ROOT empty: the working directory", func(string, string, string) []string { return []string{"FS_ROOT="} },
			func(root string) string { return root }, true},
		{"FS_ROOT another store", func(_, other, _ string) []string { return []string{"FS_ROOT=" + other} }, nil, false},
		{"FS_ROOT where no store is", func(root, _, _ string) []string { return []string{"FS_ROOT=" + filepath.Join(root, "nowhere")} }, nil, false},
		{"FS_ROOT unset: /", func(string, string, string) []string { return nil }, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Add(storetest.Release{Ident: "core/app/1/20200101000000"}, storetest.Release{Ident: "core/app/2/20200201000000"})
			other := storetest.New(t)
			other.Add(storetest.Release{Ident: "core/app/1/20200101000000"})
			link := filepath.Join(t.TempDir(), "root")
			if err := os.Symlink(b.Root, link); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat("/hab/pkgs"); err == nil && tc.env(b.Root, other.Root, link) == nil {
				t.Skip("this machine has a store at /hab/pkgs")
			}
			cmd := &exec.Cmd{Path: exe, Args: []string{"hab", "pkg", "install", "core/app"},
				Env: append(append(clean, cmdlineEnv+"=1"), tc.env(b.Root, other.Root, link)...)}
			if tc.dir != nil {
				cmd.Dir = tc.dir(b.Root)
			}
			startCmdlineHelper(t, cmd)
			p := planCmdline(t, b.Root)
			d, _ := p.Decision(pkgstore.MustParseIdent("core/app/1/20200101000000"))
			ours := strings.Contains(p.InstallWait, "runs hab pkg install core/app")
			if ours != tc.holds {
				t.Fatalf("core/app/1: %s %v (install wait %q), want held by the helper %v", d.Action, d.Reasons, p.InstallWait, tc.holds)
			}
			if tc.holds && d.Action != retention.Keep {
				t.Fatalf("core/app/1: %s %v while an install into this store runs", d.Action, d.Reasons)
			}
		})
	}
}

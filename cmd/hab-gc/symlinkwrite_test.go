//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// No directory from the FS root down to a file hab-gc
// writes may be a symlink it follows. With hab, hab/sup, hab/sup/default
// or hab/sup/default/hab-gc a symlink to a directory outside the FS root
// (holding what was there, if anything), `run` (the store's lock, the
// history), `lease` (the leases directory) and `daemon --once` (the
// schedule state and its lock, the history) write nothing there, and say
// which symlink they refused. A run whose store is reached through the
// symlink (hab) is refused (exit 3, nothing removed); one whose store is
// not keeps its removals and warns that its history was not written, as
// for any history that cannot be written.
func TestNoWriteThroughSymlinkedDirs(t *testing.T) {
	t.Parallel()
	exe := testtool.Executable(t)
	cmds := map[string][]string{
		"run":    {"run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false"},
		"lease":  {"lease", "core/redis", "--", "true"},
		"daemon": {"daemon", "--once", "--schedules", "$W/schedules"},
	}
	for _, link := range []string{"hab", "hab/sup", "hab/sup/default", "hab/sup/default/hab-gc"} {
		for _, name := range []string{"run", "lease", "daemon"} {
			t.Run(link+"/"+name, func(t *testing.T) {
				w, outside := testtool.TempDir(t), testtool.TempDir(t)
				root := filepath.Join(w, "root")
				storetest.Demo(storetest.At(t, root))
				schedtest.Write(t, filepath.Join(w, "schedules"), "p", schedtest.Prune(root, "@daily-random"))
				// What was at the link's name moves outside, and the link
				// leads there.
				at, moved := filepath.Join(root, link), filepath.Join(outside, "moved")
				if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(at, moved); errors.Is(err, os.ErrNotExist) {
					os.Mkdir(moved, 0o755)
				} else if err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(moved, at); err != nil {
					t.Fatal(err)
				}
				before := treeOf(t, outside)
				args := []string{"hab-gc", cmds[name][0], "--fs-root", root}
				for _, a := range cmds[name][1:] {
					args = append(args, strings.ReplaceAll(a, "$W", w))
				}
				var stdout, stderr bytes.Buffer
				cmd := &exec.Cmd{Path: exe, Args: args, Dir: w, Stdout: &stdout, Stderr: &stderr}
				code := exitCodeOf(t, cmd.Run())
				added, gone := treeChanges(before, treeOf(t, outside))
				if len(added)+len(gone) > 0 {
					t.Errorf("exit %d: written through the symlink %s:\nnew or changed: %q\ngone: %q\nstderr: %s", code, at, added, gone, stderr.String())
				}
				if !strings.Contains(stderr.String(), at+" is a symlink") {
					t.Errorf("exit %d: stderr does not name the symlink %s:\n%s", code, at, stderr.String())
				}
				switch {
				case name == "lease" && code == 0:
					t.Errorf("lease exit 0 with its lease refused")
				case name == "run" && link == "hab" && code != exitRefused:
					t.Errorf("run exit %d, want %d (the store's lock is reached through %s)", code, exitRefused, at)
				}
			})
		}
	}
}

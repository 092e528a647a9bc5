package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// treeChanges are the lines of after not in before (new or changed
// paths) and those of before not in after (gone), as treeOf lists them.
func treeChanges(before, after []string) (added, gone []string) {
	for _, l := range after {
		if !slices.Contains(before, l) {
			added = append(added, l)
		}
	}
	for _, l := range before {
		if !slices.Contains(after, l) {
			gone = append(gone, l)
		}
	}
	return added, gone
}

// treeOf lists every path under dir (type, mode, content hash, link
// target), to compare before and after a command.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", p, fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			line += " -> " + l
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A command that is refused for what the operator wrote
// (exit 2: a bad flag or definition, an FS root or hab/pkgs that does not
// exist) creates no file or directory anywhere: not under the FS root, not
// in the working directory, HOME or TMPDIR, not the metrics file, the
// history journal, the leases directory, the artifact cache, the schedule
// state file or its lock. The binary runs as a separate process, with
// everything it could write inside one temporary tree that is compared
// whole before and after.
func TestRefusedCommandsWriteNothing(t *testing.T) {
	t.Parallel()
	exe := testtool.Executable(t)
	const (
		missing = "missing" // FS root that does not exist
		empty   = "empty"   // FS root without hab/pkgs
		store   = "store"   // FS root with the demo store
	)
	type tc struct {
		name string
		root string
		args []string // $ROOT, $W replaced
		code int
	}
	perRoot := [][]string{
		{"run", "--keep-latest=1"},
		{"run", "--keep-latest=1", "--min-age=none", "--cache"},
		{"run", "--keep-latest=1", "--min-free", "1GiB", "--max-free", "2GiB"},
		{"run", "--keep-latest=1", "--metrics-file", "$W/textfile/hab_gc.prom"},
		{"run", "--keep-latest=1", "--dry-run"},
		{"list"},
		{"why", "--keep-latest=1", "core/redis/5.0.1/20210401000000"},
		{"check"},
		{"check", "--metrics-file", "$W/textfile/hab_gc.prom"},
		{"graph"},
		{"lease", "core/redis", "--", "true"},
		{"daemon", "--once", "--schedules", "$W/schedules"},
		{"daemon", "--once", "--schedules", "$W/schedules", "--metrics-file", "$W/textfile/hab_gc.prom"},
	}
	var cases []tc
	for _, root := range []string{missing, empty} {
		for _, a := range perRoot {
			cases = append(cases, tc{root + "/" + strings.Join(a, " "), root, a, exitUsage})
		}
	}
	// A real store, refused for what the command line or a definition
	// says.
	for _, a := range [][]string{
		{"run", "--keep-latest=-1", "--metrics-file", "$W/textfile/hab_gc.prom"},
		{"run", "--keep-latest=1", "--lock-timeout", "soon", "--metrics-file", "$W/textfile/hab_gc.prom"},
		{"run", "--keep-latest=1", "--min-free", "lots", "--metrics-file", "$W/textfile/hab_gc.prom"},
		{"run", "--keep-latest=1", "--cache-keep-latest=-2", "--cache"},
		{"check", "--lock-timeout", "soon", "--metrics-file", "$W/textfile/hab_gc.prom"},
		{"lease", "core/redis"},
		{"lease", "core/bad ident", "--", "true"},
		{"daemon", "--once", "--schedules", "$W/rejected"},
		{"daemon", "--once", "--schedules", "$W/rejected", "--metrics-file", "$W/textfile/hab_gc.prom"},
		{"daemon", "--once", "--schedules", "$W/nowhere"},
	} {
		cases = append(cases, tc{store + "/" + strings.Join(a, " "), store, a, exitUsage})
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			w := testtool.TempDir(t)
			for _, d := range []string{"cwd", "home", "tmp", "textfile", "schedules", "rejected", empty} {
				if err := os.Mkdir(filepath.Join(w, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			storetest.Demo(storetest.At(t, filepath.Join(w, store)))
			root := filepath.Join(w, tt.root)
			schedtest.Write(t, filepath.Join(w, "schedules"), "p", schedtest.Prune(root, "@daily-random"))
			bad := fmt.Sprintf("fs_root = %q\n[prune]\nschedule = \"@daily-random\"\nkeep_latst = 1\n", root)
			if err := os.WriteFile(filepath.Join(w, "rejected", "p.toml"), []byte(bad), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"hab-gc"}
			for _, a := range tt.args {
				args = append(args, strings.NewReplacer("$W", w).Replace(a))
			}
			args = append(args, "--fs-root", root)
			before := treeOf(t, w)
			var stdout, stderr bytes.Buffer
			cmd := &exec.Cmd{Path: exe, Args: args, Dir: filepath.Join(w, "cwd"), Stdout: &stdout, Stderr: &stderr,
				Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(w, "home"), "TMPDIR=" + filepath.Join(w, "tmp"),
					"XDG_CACHE_HOME=" + filepath.Join(w, "home", ".cache"), "XDG_CONFIG_HOME=" + filepath.Join(w, "home", ".config")}}
			if code := exitCodeOf(t, cmd.Run()); code != tt.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tt.code, stderr.String())
			}
			added, gone := treeChanges(before, treeOf(t, w))
			if len(added)+len(gone) > 0 {
				t.Errorf("the command changed the file system:\nnew or changed: %q\ngone: %q\nstderr: %s", added, gone, stderr.String())
			}
		})
	}
}

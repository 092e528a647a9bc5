//go:build linux

package retention_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"golang.org/x/sys/unix"
)

const leftIdent = "core/redis/7.0.0/20240301000000"

// leftoverStore is core/redis 6.2.5 and 6.2.6 installed, and an install of
// leftIdent killed at step, as `hab pkg install` leaves it
// (components/common/src/command/package/install.rs unpack_artifact: the
// archive unpacked in VERSION/.hab-pkg-install-* made by
// components/core/src/package/list.rs temp_package_directory, then
// TEMP/hab/pkgs/O/N/V/R renamed to O/N/V/R). It returns the store and the
// install directory's path.
func leftoverStore(t *testing.T, step storetest.Step) (*storetest.Builder, string) {
	t.Helper()
	b := storetest.New(t)
	oldPkg(b, "core/redis/6.2.5/20240101000000")
	oldPkg(b, "core/redis/6.2.6/20240201000000")
	killedInstall(t, b.Root, storetest.Archive{Ident: leftIdent, Payload: []string{"bin/redis-server", "share/doc.txt"}}, step)
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(b.PkgPath(leftIdent)), ".hab-pkg-install-*"))
	if len(m) != 1 {
		t.Fatalf("the killed install left %v", m)
	}
	return b, m[0]
}

// runLeftovers is `hab-gc run --keep-latest=1 --min-age=none` with an
// install window of a nanosecond (every install directory is old), its
// policy pol and its options opts.
func runLeftovers(t *testing.T, root string, pol retention.Policy, opts retention.ApplyOptions) *retention.Result {
	t.Helper()
	pol.KeepLatest, pol.MinAge = 1, retention.NoMinAge
	s, p := openPlan(t, root, pol, time.Now(), pkgstore.Options{Target: "x86_64-linux", InstallWindow: time.Nanosecond})
	res, err := p.Apply(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// files lists the regular files under dir (relative) with their contents.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: nothing to compare", what)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s changed or gone", what, k)
		}
	}
}

// TestLeftoverRemoved is the baseline of the attacks below: a killed
// install's directory, old and held by no process, is removed.
func TestLeftoverRemoved(t *testing.T) {
	t.Parallel()
	b, temp := leftoverStore(t, storetest.StepUnpacking)
	res := runLeftovers(t, b.Root, retention.Policy{}, fast)
	if exists(temp) || len(res.Leftovers) != 1 || res.Leftovers[0].Status != retention.StatusRemoved {
		t.Fatalf("leftovers %+v; want %s removed", res.Leftovers, temp)
	}
}

// TestLeftoverNotADirectory: an entry named like an install directory
// that is a symlink (to a directory outside the store, to a release) or a
// regular file is never Habitat's: it and what it points to stay.
func TestLeftoverNotADirectory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		target func(b *storetest.Builder) string // "" a regular file
	}{
		{"symlink to a directory outside the store", func(*storetest.Builder) string {
			out := testtool.TempDir(t)
			os.MkdirAll(filepath.Join(out, "hab/pkgs/core/redis"), 0o755)
			os.WriteFile(filepath.Join(out, "hab/pkgs/core/redis/precious"), []byte("outside"), 0o644)
			return out
		}},
		{"symlink to a release", func(b *storetest.Builder) string { return b.PkgPath("core/redis/6.2.6/20240201000000") }},
		{"regular file", func(*storetest.Builder) string { return "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := storetest.New(t)
			oldPkg(b, "core/redis/6.2.5/20240101000000")
			oldPkg(b, "core/redis/6.2.6/20240201000000")
			entry := filepath.Join(filepath.Dir(b.PkgPath("core/redis/6.2.6/20240201000000")), ".hab-pkg-install-XXXXXX")
			target := tc.target(b)
			var before map[string]string
			if target == "" {
				if err := os.WriteFile(entry, []byte("not Habitat's"), 0o644); err != nil {
					t.Fatal(err)
				}
				before = map[string]string{".": "not Habitat's"}
			} else {
				before = files(t, target)
				if err := os.Symlink(target, entry); err != nil {
					t.Fatal(err)
				}
			}
			res := runLeftovers(t, b.Root, retention.Policy{}, fast)
			if target == "" {
				b, err := os.ReadFile(entry)
				if err != nil || string(b) != "not Habitat's" {
					t.Fatalf("the file: %q, %v; leftovers %+v", b, err, res.Leftovers)
				}
				return
			}
			sameFiles(t, "the symlink's target", before, files(t, target))
			if l, err := os.Readlink(entry); err != nil || l != target {
				t.Errorf("the symlink: %q, %v", l, err)
			}
		})
	}
}

// TestLeftoverMountPoint: a file system mounted on a leftover install
// directory, or on a directory in it, is neither crossed nor unmounted:
// its files survive, the mount stays.
func TestLeftoverMountPoint(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	for _, tc := range []struct{ name, at string }{
		{"tmpfs on the directory itself", "."},
		{"tmpfs inside it", "hab"},
		{"bind mount inside it", "hab/pkgs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, temp := leftoverStore(t, storetest.StepUnpacking)
			at := filepath.Join(temp, tc.at)
			if tc.name == "bind mount inside it" {
				src := testtool.TempDir(t)
				os.WriteFile(filepath.Join(src, "precious"), []byte("bound"), 0o644)
				if err := unix.Mount(src, at, "", unix.MS_BIND, ""); err != nil {
					t.Fatal(err)
				}
			} else if err := unix.Mount("tmpfs", at, "tmpfs", 0, "size=1m"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { unix.Unmount(at, unix.MNT_DETACH) })
			if err := os.WriteFile(filepath.Join(at, "mounted"), []byte("mounted"), 0o644); err != nil {
				t.Fatal(err)
			}
			var before, after unix.Stat_t
			unix.Lstat(at, &before)
			before2 := files(t, at)
			res := runLeftovers(t, b.Root, retention.Policy{}, fast)
			sameFiles(t, "the mounted file system", before2, files(t, at))
			if err := unix.Lstat(at, &after); err != nil || after.Dev != before.Dev {
				t.Errorf("the mount point %s: %v, device %d, was %d", at, err, after.Dev, before.Dev)
			}
			for _, l := range res.Leftovers {
				if l.Status == retention.StatusRemoved {
					t.Errorf("leftover %+v removed", l)
				}
			}
		})
	}
}

// TestLeftoverInstallFinishesDuringRun: the install was not killed, only
// slow: it renames its release into place (install.rs unpack_artifact,
// fs::rename of TEMP/hab/pkgs/O/N/V/R to O/N/V/R) while the run holds the
// lock, after the run examined its directory. The release is never
// removed or damaged; a rename that comes after the run fails cleanly.
func TestLeftoverInstallFinishesDuringRun(t *testing.T) {
	t.Parallel()
	for _, when := range []string{"finders under the lock", "just before deleting", "after the run"} {
		t.Run(when, func(t *testing.T) {
			t.Parallel()
			b, temp := leftoverStore(t, storetest.StepUnpacked)
			from := filepath.Join(temp, "hab/pkgs", leftIdent)
			final := b.PkgPath(leftIdent)
			want := files(t, from)
			renamed := false
			var renameErr error
			rename := func() { renamed, renameErr = true, os.Rename(from, final) }
			var pol retention.Policy
			opts := fast
			switch when {
			case "finders under the lock":
				calls := 0
				pol.RootFinders = []retention.RootFinder{retention.RootFinderFunc(func(context.Context, *pkgstore.Inventory) (retention.Found, error) {
					if calls++; calls == 2 {
						rename()
					}
					return retention.Found{Source: "test"}, nil
				})}
			case "just before deleting":
				retention.SetHook(&opts, func(stage string, _ pkgstore.Ident, _ string) {
					if stage == "leftover" {
						rename()
					}
				})
			}
			res := runLeftovers(t, b.Root, pol, opts)
			if when == "after the run" {
				rename()
				if !errors.Is(renameErr, fs.ErrNotExist) || exists(final) {
					t.Fatalf("the install's rename after the run: %v; want it to fail, nothing at %s", renameErr, final)
				}
				return
			}
			if !renamed || renameErr != nil {
				t.Fatalf("the install's rename: %v, %v", renamed, renameErr)
			}
			sameFiles(t, "the installed release", want, files(t, final))
			t.Logf("leftovers %+v", res.Leftovers)
		})
	}
}

// TestLeftoverReplacedBeforeDeleting: the install directory examined is
// renamed away and another put in its place between the last check and
// the deletion: nothing is deleted.
func TestLeftoverReplacedBeforeDeleting(t *testing.T) {
	t.Parallel()
	b, temp := leftoverStore(t, storetest.StepUnpacking)
	aside := filepath.Join(filepath.Dir(temp), "aside")
	opts := fast
	retention.SetHook(&opts, func(stage string, _ pkgstore.Ident, _ string) {
		if stage != "leftover" {
			return
		}
		if err := os.Rename(temp, aside); err != nil {
			t.Error(err)
		}
		if err := os.Mkdir(temp, 0o700); err != nil {
			t.Error(err)
		}
		os.WriteFile(filepath.Join(temp, "new"), []byte("an install's"), 0o644)
	})
	res := runLeftovers(t, b.Root, retention.Policy{}, opts)
	if got, err := os.ReadFile(filepath.Join(temp, "new")); err != nil || string(got) != "an install's" {
		t.Fatalf("the directory put in its place: %q, %v; leftovers %+v", got, err, res.Leftovers)
	}
	if len(res.Leftovers) != 1 || res.Leftovers[0].Status == retention.StatusRemoved || !strings.Contains(res.Leftovers[0].Text, "replaced") {
		t.Fatalf("leftovers %+v; want it left alone as replaced", res.Leftovers)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(temp), pkgstore.DebrisPrefix+"*")); len(m) != 0 {
		t.Fatalf("debris left: %v", m)
	}
}

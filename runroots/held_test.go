//go:build linux

package runroots_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
)

// TestHeldInstalls: a process holding open an archive
// of the artifact cache, or a file or its working directory in an install
// directory, is an install in progress (Result.Held, Found.Installs); one
// holding the archive through a Studio's bind mount of the cache is the
// Studio's, and a file of a release is a use, not an install.
func TestHeldInstalls(t *testing.T) {
	const app = "core/app/2.0/20261201000000"
	const archive = "core-app-2.0-20261201000000-x86_64-linux.hart"
	inst := "core/app/2.0/" + pkgstore.InstallTempPrefix + "-20261201000000abcdef"
	for _, tc := range []struct {
		name string
		how  proctest.How
		file string // relative to the FS root
		want string // Held.Path, "" for none
	}{
		{"archive open", proctest.Open, pkgstore.ArtifactCacheDir + "/" + archive, pkgstore.ArtifactCacheDir + "/" + archive},
		{"download open", proctest.Open, pkgstore.ArtifactCacheDir + "/.tmpAbC123", pkgstore.ArtifactCacheDir + "/.tmpAbC123"},
		{"file of an install directory open", proctest.Open, pkgstore.StoreDir + "/" + inst + "/hab/pkgs/" + app + "/bin/app", pkgstore.StoreDir + "/" + inst},
		{"working directory in an install directory", proctest.Cwd, pkgstore.StoreDir + "/" + inst + "/hab/pkgs/" + app + "/bin/app", pkgstore.StoreDir + "/" + inst},
		{"archive through a Studio's cache", proctest.Open, pkgstore.StudiosDir + "/x/" + pkgstore.ArtifactCacheDir + "/" + archive, ""},
		{"file of a release", proctest.Open, pkgstore.StoreDir + "/core/dep/1.0/20200101000000/IDENT", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg("core/dep/1.0/20200101000000")
			in := storetest.NewInstaller(b.Root, 31)
			if err := in.Cache(storetest.Archive{Ident: app, Deps: []string{"core/dep/1.0/20200101000000"}}, 0); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(b.Root, filepath.FromSlash(tc.file))
			if _, err := os.Stat(p); err != nil {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			proc := proctest.Start(t, tc.how, p)
			inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
			if err != nil {
				t.Fatal(err)
			}
			found, err := runroots.ModeOn.FindRoots(context.Background(), inv)
			if err != nil {
				t.Fatal(err)
			}
			var got []pkgstore.Installing
			for _, i := range found.Installs {
				if strings.Contains(i.By, "process "+strconv.Itoa(proc.Cmd.Process.Pid)+" ") {
					got = append(got, i)
				}
			}
			if tc.want == "" {
				if len(got) > 0 {
					t.Fatalf("installs %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || !got[0].Active || !strings.HasSuffix(tc.want, got[0].Path) {
				t.Fatalf("installs %+v, want one, active, at %s", got, tc.want)
			}
			if strings.HasSuffix(tc.want, ".hart") {
				if got[0].Release.String() != app || !got[0].Known || !slices.Contains(got[0].Deps, pkgstore.MustParseIdent("core/dep/1.0/20200101000000")) {
					t.Errorf("archive install %+v, want %s needing core/dep/1.0/20200101000000", got[0], app)
				}
			}
			t.Log(got[0].By)
		})
	}
}

// TestBlindScanSeesHeldArchive: a planner that cannot
// read the processes' fd links (root without CAP_SYS_PTRACE) checks the
// artifact cache's archives with write leases: one a hidden process holds
// open is an install in progress, and removals wait, though the
// archive's release is installed in a Studio (so the fresh archive alone
// holds nothing). Without the process the plan goes ahead.
func TestBlindScanSeesHeldArchive(t *testing.T) {
	const tool = "core/tool/1.0/20261201000000"
	for _, holding := range []bool{true, false} {
		t.Run(map[bool]string{true: "archive held open", false: "no process"}[holding], func(t *testing.T) {
			b := appStore(t)
			storetest.At(t, filepath.Join(b.Root, "hab", "studios", "x")).Add(storetest.Release{Ident: tool, Deps: []string{oldApp}})
			in := storetest.NewInstaller(b.Root, 31)
			if err := in.Cache(storetest.Archive{Ident: tool, Deps: []string{oldApp}}, 0); err != nil {
				t.Fatal(err)
			}
			if holding {
				proctest.Start(t, proctest.Open, in.ArchivePath(tool))
			}
			out := planWithout(t, b.Root, "", "sys_ptrace", "sys_admin", "perfmon")
			if out.Err != "" {
				t.Fatalf("blind plan failed: %s", out.Err)
			}
			if out.Counts["denied"] == 0 {
				t.Fatalf("the planner was not blind (counts %v): the test proves nothing", out.Counts)
			}
			t.Logf("%s: %s %+v", out.Summary, out.Action, out.Reasons)
			if !strings.Contains(out.Summary, "archive(s) of the artifact cache checked") || !strings.Contains(out.Summary, "not seen: a working directory in an install directory") {
				t.Errorf("blind summary %q does not say what it checked of installs and what it cannot see", out.Summary)
			}
			if !holding {
				if out.Action != string(retention.Remove) {
					t.Fatalf("blind plan, nothing held: %s %+v; want remove", out.Action, out.Reasons)
				}
				return
			}
			if out.Action != string(retention.Keep) || !hasReason(out.Reasons, retention.CodeInstalling, tool) || out.Counts["lease_busy_archives"] != 1 {
				t.Fatalf("blind plan, archive held open: %s %+v counts %v; want keep, install-in-progress of %s", out.Action, out.Reasons, out.Counts, tool)
			}
		})
	}
}

// TestHeldInstallsAdversarial: what a process holds in the cache may be
// a FIFO (held read-write, so that its open did not block), and a
// symlink named *.hart may lead to it; neither blocks the scan or the
// blind lease probe (which opens regular files only, never through a
// symlink). The FIFO held open, which cannot be read as an archive, makes
// removals wait (what that install needs cannot be known); the blind
// probe, which takes no lease on a FIFO, does not see it (nor would
// Habitat take it for a cached archive: install.rs is_artifact_cached,
// Path::is_file).
func TestHeldInstallsAdversarial(t *testing.T) {
	b := appStore(t)
	cache := filepath.Join(b.Root, "hab", "cache", "artifacts")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(cache, "core-x-1.0-20261201000000-x86_64-linux.hart")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Base(fifo), filepath.Join(cache, "core-y-1.0-20261201000000-x86_64-linux.hart")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `exec 3<>"$1"; exec sleep 600`, "sh", fifo)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if l, _ := os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/fd/3"); l == fifo {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the process did not open the FIFO")
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
		if err != nil {
			t.Error(err)
			return
		}
		found, err := runroots.ModeOn.FindRoots(context.Background(), inv)
		if err != nil {
			t.Error(err)
			return
		}
		if len(found.Installs) != 1 || !found.Installs[0].Active || found.Installs[0].Known {
			t.Errorf("installs %+v, want the FIFO's, active, its needs unknown", found.Installs)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the scan blocked on the FIFO")
	}
	out := planWithout(t, b.Root, "", "sys_ptrace", "sys_admin", "perfmon")
	t.Logf("blind: %s: %s %+v %s", out.Summary, out.Action, out.Reasons, out.Err)
	if out.Err != "" || out.Action != string(retention.Remove) {
		t.Fatalf("blind plan: %s %+v err %q; want remove (a FIFO and a symlink are not archives a lease checks)", out.Action, out.Reasons, out.Err)
	}
}

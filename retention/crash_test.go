package retention_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/hab-gc/hab-gc/internal/inuse"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// treeSum hashes a directory tree without following symlinks.
func treeSum(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %v\n", rel, d.Type())
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			fmt.Fprintf(h, "-> %s\n", l)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// listed returns the releases Habitat would list, with their tree sums,
// and every other entry found at the release level.
func listed(t *testing.T, root string) (releases map[string]string, other []string) {
	t.Helper()
	releases = map[string]string{}
	store := filepath.Join(root, "hab", "pkgs")
	vdirs, _ := filepath.Glob(filepath.Join(store, "*", "*", "*"))
	for _, v := range vdirs {
		es, _ := os.ReadDir(v)
		for _, e := range es {
			rel, _ := filepath.Rel(store, filepath.Join(v, e.Name()))
			if strings.HasPrefix(e.Name(), pkgstore.InstallTempPrefix) {
				other = append(other, rel)
				continue
			}
			tgt, err := os.ReadFile(filepath.Join(v, e.Name(), "TARGET"))
			if err != nil || strings.TrimSpace(string(tgt)) != "x86_64-linux" {
				other = append(other, rel)
				continue
			}
			releases[filepath.ToSlash(rel)] = treeSum(t, filepath.Join(v, e.Name()))
		}
	}
	return releases, other
}

// crashStore builds a store where many releases with payloads are to be
// removed.
func crashStore(t *testing.T, root string) {
	b := storetest.At(t, root)
	files := map[string]string{}
	for i := 0; i < 30; i++ {
		files[fmt.Sprintf("payload/d%d/f%d", i%4, i)] = strings.Repeat("x", 100+i)
	}
	files["bin/tool"] = "#!/bin/sh\n"
	// Each package needs the next one in inventory order (p0 needs p1...),
	// so reverse inventory order is not dependents first.
	for p := 5; p >= 0; p-- {
		var prev string
		for r := 0; r < 5; r++ {
			id := fmt.Sprintf("core/p%d/1.%d/2020010%d000000", p, r, r+1)
			var deps []string
			if p < 5 {
				deps = []string{fmt.Sprintf("core/p%d/1.%d/2020010%d000000", p+1, r, r+1)}
			}
			b.Add(storetest.Release{Ident: id, Deps: deps, Files: files, ModTime: old})
			prev = id
		}
		_ = prev
	}
	b.Symlink("/etc/passwd", "hab/pkgs/core/p0/1.0/20200101000000/etc-link")
}

// copyTree copies the tree under from into the directory to as `cp -a`
// does (which Windows lacks): symlinks as symlinks, modes and
// modification times kept, directories' times set after their contents.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			dirs = append(dirs, rel)
			return os.MkdirAll(dst, 0o755) // its mode once filled, below
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, dst)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
			return err
		}
		if err := os.Chmod(dst, fi.Mode().Perm()); err != nil { // whatever the umask
			return err
		}
		return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
	})
	for i := len(dirs) - 1; i >= 0 && err == nil; i-- {
		var fi os.FileInfo
		if fi, err = os.Lstat(filepath.Join(from, dirs[i])); err == nil {
			if err = os.Chmod(filepath.Join(to, dirs[i]), fi.Mode().Perm()); err == nil {
				err = os.Chtimes(filepath.Join(to, dirs[i]), fi.ModTime(), fi.ModTime())
			}
		}
	}
	if err != nil {
		t.Fatalf("copying %s to %s: %v", from, to, err)
	}
}

// TestHelperApplyProcess is not a test: TestApplyCrashSafety runs the test
// binary with HABGC_CRASH_ROOT set to apply a plan in a process it kills.
func TestHelperApplyProcess(t *testing.T) {
	root := os.Getenv("HABGC_CRASH_ROOT")
	if root == "" {
		return // run only as TestApplyCrashSafety's child (not a skip: nothing is left untested)
	}
	p := planAt(t, root, retention.Policy{KeepLatest: 2})
	applyPlan(t, p, root, retention.ApplyOptions{Settle: time.Millisecond})
}

func runHelper(root string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperApplyProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "HABGC_CRASH_ROOT="+root)
	return cmd
}

// TestApplyCrashSafety kills an Apply at 20 random moments of its run;
// HABGC_CRASH_KILLS=100 makes it the thorough run.
func TestApplyCrashSafety(t *testing.T) {
	t.Parallel()
	kills := 20
	if n, err := strconv.Atoi(os.Getenv("HABGC_CRASH_KILLS")); err == nil && n > 0 {
		kills = n
	}
	template := testtool.TempDir(t)
	crashStore(t, template)
	before, _ := listed(t, template)
	keep := map[string]bool{}
	for _, d := range planAt(t, template, retention.Policy{KeepLatest: 2}).Keeps() {
		keep[d.Release.Ident.String()] = true
	}

	// How long does a whole run take, process start included?
	dry := testtool.TempDir(t)
	copyTree(t, template, dry)
	start := time.Now()
	if out, err := runHelper(dry).CombinedOutput(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	span := time.Since(start)
	after, other := listed(t, dry)
	if len(after) != len(keep) || len(other) != 0 {
		t.Fatalf("an uninterrupted run left %d releases (want %d) and %v", len(after), len(keep), other)
	}

	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < kills; i++ {
		root := testtool.TempDir(t)
		copyTree(t, template, root)
		cmd := runHelper(root)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(span))))
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		got, other := listed(t, root)
		// (a) every release Habitat would list is complete, byte for byte,
		// and every release the plan keeps is still listed.
		for id, sum := range got {
			if before[id] != sum {
				t.Fatalf("kill %d: %s is listed but changed", i, id)
			}
		}
		for id := range keep {
			if _, ok := got[id]; !ok {
				t.Fatalf("kill %d: kept release %s is not listed", i, id)
			}
		}
		// (b) anything else is hab-gc's own debris, which Habitat skips;
		// a release hidden but not yet doomed is whole, byte for byte:
		// the next run puts it back if something needs it by then.
		for _, o := range other {
			base := filepath.Base(o)
			if !strings.HasPrefix(base, pkgstore.DebrisPrefix) {
				t.Fatalf("kill %d: unexpected entry %s", i, o)
			}
			if release, ok := inuse.HiddenRelease(base); ok && strings.HasPrefix(base, pkgstore.DebrisPrefix+"pending-") {
				id := filepath.ToSlash(filepath.Dir(o)) + "/" + release
				if sum := treeSum(t, filepath.Join(root, "hab", "pkgs", o)); before[id] != sum {
					t.Fatalf("kill %d: %s, hidden %s, is not whole: a next run may put it back so", i, o, id)
				}
			}
		}
		// (c) the next run finishes the job, debris included.
		res := applyPlan(t, planAt(t, root, retention.Policy{KeepLatest: 2}), root, fast)
		got, other = listed(t, root)
		if len(got) != len(keep) || len(other) != 0 {
			t.Fatalf("kill %d: after the next run: %d releases (want %d), other %v%s", i, len(got), len(keep), other, keptWhy(res, keep))
		}
	}
}

// keptWhy says why a run kept each release the rules alone do not keep:
// a process anywhere on the machine that uses one keeps it, rightly.
func keptWhy(res *retention.Result, keep map[string]bool) string {
	var b strings.Builder
	for _, o := range res.Outcomes {
		if o.Status == retention.StatusKept && !keep[o.Ident.String()] {
			fmt.Fprintf(&b, "\n%s kept: %v", o.Ident, o.Reasons)
		}
	}
	for _, l := range res.Leftovers {
		if l.Status == retention.StatusKept {
			fmt.Fprintf(&b, "\n%s: %s", l.Path, l.Text)
		}
	}
	return b.String()
}

// TestApplyWithConcurrentInstalls imitates Habitat installing packages
// (temporary directory, then rename; dependencies first) while Apply
// removes old releases those installs depend on. No installed release may
// end up with a missing dependency.
//
// Apply's settle pause is for installs in flight to finish (or show their
// install directory) before its last check. The imitation's installs took
// up to one round of 150 installs after their dependency check; under
// load (-race, a busy machine) that outlasted the pause and the test
// failed, as a real install slower than Settle would. So the last check
// (PhaseRecheck, told through OnPhase) waits for the installer to end the
// round it is in: every install whose dependency check may have come
// before a hide is then done, however slow the machine.
func TestApplyWithConcurrentInstalls(t *testing.T) {
	testConcurrentInstalls(t, 500*time.Millisecond)
}

// TestInstallDuringSettleKeepsItsDependency: an install that found its
// dependency installed before Apply hid it, and renames its release into
// place during the settle pause, gets the dependency back. (The concurrent
// test above cannot tell: its later rounds install a hidden dependency
// afresh.) OnPhase makes the order exact.
func TestInstallDuringSettleKeepsItsDependency(t *testing.T) {
	b, p := depOldRemoved(t)
	const app = "core/app/1.0/20260101000000"
	// The install finds depOld installed ("Using") before the hide, and
	// waits there until the settle pause; then unpacks and renames app.
	in := storetest.NewInstaller(b.Root, 1).Publish(storetest.Archive{Ident: app, Deps: []string{depOld}})
	resolved, resume := make(chan struct{}), make(chan struct{})
	in.At = func(pt storetest.Point) error {
		if pt.Step == storetest.StepDepsChecked {
			close(resolved)
			<-resume
		}
		return nil
	}
	installed := make(chan error, 1)
	go func() { installed <- in.Install(app) }()
	<-resolved
	settled := false
	// Apply's clock is two hours on: the archive app came from looks
	// cached long ago, as it may be (the test cannot age a ctime).
	opts := retention.ApplyOptions{Settle: time.Nanosecond, Now: func() time.Time { return time.Now().Add(2 * time.Hour) }, OnPhase: func(e retention.PhaseEvent) {
		if e.Phase == retention.PhaseSettle && !settled {
			settled = true
			close(resume)
			if err := <-installed; err != nil {
				t.Error(err)
			}
		}
	}}
	res := applyPlan(t, p, b.Root, opts)
	if !settled {
		t.Fatal("no settle pause")
	}
	if o, _ := outcome(res, depOld); o.Status != retention.StatusKept || !hasReason(o.Reasons, retention.CodeNewDependent, app) {
		t.Errorf("outcome %+v", o)
	}
	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range inv.Problems {
		t.Errorf("%s", pr)
	}
}

func testConcurrentInstalls(t *testing.T, settle time.Duration) {
	const libs = 150
	for round := 0; round < 3; round++ {
		b := storetest.New(t)
		var olds []string
		for i := 0; i < libs; i++ {
			id := fmt.Sprintf("core/lib%d/1.0/20200101000000", i)
			oldPkg(b, id)
			oldPkg(b, fmt.Sprintf("core/lib%d/2.0/20210101000000", i))
			olds = append(olds, id)
		}
		p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
		if len(p.Removals()) != libs {
			t.Fatalf("plan removes %d", len(p.Removals()))
		}
		in := storetest.NewInstaller(b.Root, uint64(round))
		for _, dep := range olds {
			in.Publish(storetest.Archive{Ident: dep}) // reinstalled when found missing
		}
		// Downloading: each install waits a little between finding its
		// dependency installed ("Using") and unpacking.
		in.At = func(pt storetest.Point) error {
			if pt.Top && pt.Step == storetest.StepDepsChecked {
				time.Sleep(30 * time.Millisecond)
			}
			return nil
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		// recheck is closed when Apply starts its last check; settled
		// when the installer has then ended its round.
		recheck, settled := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			acked := false
			defer func() {
				if !acked {
					close(settled)
				}
			}()
			// Like many `hab pkg install`s of apps at once (storetest.Installer:
			// each finds its dependency installed, or installs it first,
			// then unpacks and renames the app into place), round after
			// round, while Apply runs.
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				var wg sync.WaitGroup
				for i, dep := range olds {
					app := fmt.Sprintf("core/app%d/1.0/2026%06d%04d", i, n, round)
					in.Publish(storetest.Archive{Ident: app, Deps: []string{dep}})
					wg.Add(1)
					go func() {
						defer wg.Done()
						if err := in.Install(app); err != nil {
							t.Error(err)
						}
					}()
				}
				wg.Wait()
				select {
				case <-recheck:
					if !acked {
						acked = true
						close(settled)
					}
				default:
				}
			}
		}()
		time.Sleep(5 * time.Millisecond)
		applyPlan(t, p, b.Root, retention.ApplyOptions{Settle: settle, OnPhase: func(e retention.PhaseEvent) {
			if e.Phase == retention.PhaseRecheck {
				close(recheck)
				<-settled
			}
		}})
		close(stop)
		<-done
		inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range inv.Problems {
			if pr.Kind == pkgstore.ProblemDepMissing {
				t.Fatalf("round %d: %s", round, pr)
			}
		}
	}
}

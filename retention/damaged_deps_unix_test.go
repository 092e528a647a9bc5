//go:build unix

package retention_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

const (
	damagedLib   = "core/lib/1.0/20200101000000"
	damagedApp   = "core/app/1.0/20200101000000"
	damagedOther = "core/other/1.0/20200101000000"
)

// overLimit is more than safeio.Limit (1 MiB) of lines naming lib, with
// one line naming a release that is not installed last of all.
func overLimit() string {
	line := damagedLib + "\n"
	return strings.Repeat(line, (1100<<10)/len(line)) + "core/gone/1.0/20200101000000\n"
}

// damagedDepsStore: app (the only release of its package, so kept as
// the newest) needs lib/1.0, an older release of lib that only app keeps;
// other/1.0 is an older release nothing needs. shape damages app's DEPS
// or TDEPS (dir is app's directory).
func damagedDepsStore(t *testing.T, shape func(t *testing.T, b *storetest.Builder, dir string)) *storetest.Builder {
	b := storetest.New(t)
	oldPkg(b, damagedLib)
	oldPkg(b, "core/lib/2.0/20210101000000")
	oldPkg(b, damagedOther)
	oldPkg(b, "core/other/2.0/20210101000000")
	oldPkg(b, damagedApp, damagedLib)
	shape(t, b, "hab/pkgs/"+damagedApp+"/")
	return b
}

// TestAllowDamagedKeepsWhatDamagedDepsName: whatever shape a damaged
// DEPS or TDEPS has, run --allow-damaged (PlanStore and Apply with
// AllowDamaged) keeps lib/1.0, which it names or may name. A file over
// the read limit is read line by line, so what it names is known (and
// other/1.0, which it does not name, goes); where nothing can be read
// (DEPS not a regular file or unreadable, TDEPS empty), every release is
// kept. `check` afterwards sees what the over-limit files name.
func TestAllowDamagedKeepsWhatDamagedDepsName(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape func(t *testing.T, b *storetest.Builder, dir string)
		known bool // what app needs can be read
	}{
		{"DEPS over the limit", func(t *testing.T, b *storetest.Builder, dir string) {
			b.File(dir+"DEPS", overLimit()).File(dir+"TDEPS", "")
		}, true},
		{"TDEPS over the limit", func(t *testing.T, b *storetest.Builder, dir string) {
			b.Remove(dir+"DEPS").File(dir+"TDEPS", overLimit())
		}, true},
		{"both over the limit", func(t *testing.T, b *storetest.Builder, dir string) {
			b.File(dir+"DEPS", overLimit()).File(dir+"TDEPS", overLimit())
		}, true},
		{"DEPS a directory, TDEPS empty", func(t *testing.T, b *storetest.Builder, dir string) {
			b.Remove(dir+"DEPS").Mkdir(dir+"DEPS").File(dir+"TDEPS", "")
		}, false},
		{"DEPS a directory, TDEPS absent", func(t *testing.T, b *storetest.Builder, dir string) {
			b.Remove(dir + "DEPS").Mkdir(dir + "DEPS").Remove(dir + "TDEPS")
		}, false},
		{"DEPS a FIFO, TDEPS empty", func(t *testing.T, b *storetest.Builder, dir string) {
			b.Remove(dir+"DEPS").File(dir+"TDEPS", "")
			if err := unix.Mkfifo(b.Path(dir+"DEPS"), 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, false},
		{"DEPS a symlink to nothing, TDEPS empty", func(t *testing.T, b *storetest.Builder, dir string) {
			b.Remove(dir+"DEPS").Symlink("nothing", dir+"DEPS").File(dir+"TDEPS", "")
		}, false},
		{"DEPS a symlink out of the store, TDEPS a directory", func(t *testing.T, b *storetest.Builder, dir string) {
			b.Remove(dir+"DEPS").Symlink("/etc/hostname", dir+"DEPS").Remove(dir + "TDEPS").Mkdir(dir + "TDEPS")
		}, false},
		{"DEPS mode 000, TDEPS empty", func(t *testing.T, b *storetest.Builder, dir string) {
			if os.Geteuid() == 0 {
				t.Skip("root reads a mode 000 file; the symlink shapes stand for an unreadable DEPS")
			}
			b.File(dir+"TDEPS", "").Chmod(dir+"DEPS", 0)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := damagedDepsStore(t, tc.shape)
			pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge, AllowDamaged: true}
			s, p := openPlan(t, b.Root, pol, now, pkgstore.Options{Target: "x86_64-linux"})
			if _, err := p.Apply(context.Background(), s, retention.ApplyOptions{Settle: -1}); err != nil {
				t.Fatal(err)
			}
			if d := decision(t, p, damagedLib); d.Action != retention.Keep {
				t.Errorf("%s: %s %v; want kept", damagedLib, d.Action, d.Reasons)
			}
			if !exists(b.PkgPath(damagedLib)) {
				t.Fatalf("%s was removed; %s names it", damagedLib, damagedApp)
			}
			d := decision(t, p, damagedOther)
			switch {
			case tc.known && d.Action != retention.Remove:
				t.Errorf("%s: %s %v; want removed (what %s needs is known)", damagedOther, d.Action, d.Reasons, damagedApp)
			case !tc.known && (d.Action != retention.Keep || !hasCode(d, retention.CodeDamaged, damagedApp)):
				t.Errorf("%s: %s %v; want kept as damaged, naming %s (what it needs is unknown)", damagedOther, d.Action, d.Reasons, damagedApp)
			}
			if !tc.known {
				return
			}
			// check, once lib/1.0 is gone, sees that app needs it.
			if err := os.RemoveAll(b.PkgPath(damagedLib)); err != nil {
				t.Fatal(err)
			}
			rep, err := s.Verify(context.Background(), pkgstore.Options{Target: "x86_64-linux"})
			if err != nil {
				t.Fatal(err)
			}
			var missing []string
			for _, pr := range rep.Problems {
				if pr.Kind == pkgstore.ProblemDepMissing && pr.Release == damagedApp {
					missing = append(missing, pr.Message)
				}
			}
			if len(missing) != 2 || !strings.Contains(strings.Join(missing, "\n"), damagedLib) {
				t.Errorf("check reports as missing for %s: %q; want %s and core/gone/1.0/20200101000000", damagedApp, missing, damagedLib)
			}
		})
	}
}

// TestApplyWaitsForReleaseWhoseNeedsAreUnknown: a release whose needs
// cannot be read at all (DEPS a directory, TDEPS empty) installed after
// the plan holds every removal at Apply's last check.
func TestApplyWaitsForReleaseWhoseNeedsAreUnknown(t *testing.T) {
	b := storetest.New(t)
	oldPkg(b, damagedLib)
	oldPkg(b, "core/lib/2.0/20210101000000")
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge, AllowDamaged: true}
	s, p := openPlan(t, b.Root, pol, now, pkgstore.Options{Target: "x86_64-linux"})
	if d := decision(t, p, damagedLib); d.Action != retention.Remove {
		t.Fatalf("%s: %s; the store is not what the test means", damagedLib, d.Action)
	}
	oldPkg(b, damagedApp, damagedLib)
	dir := "hab/pkgs/" + damagedApp + "/"
	b.Remove(dir+"DEPS").Mkdir(dir+"DEPS").File(dir+"TDEPS", "")
	res, err := p.Apply(context.Background(), s, retention.ApplyOptions{Settle: -1})
	if err != nil {
		t.Fatal(err)
	}
	o, _ := outcome(res, damagedLib)
	if !exists(b.PkgPath(damagedLib)) {
		t.Fatalf("%s removed (%+v); %s, installed since the plan, may need it", damagedLib, o, damagedApp)
	}
	if len(o.Reasons) == 0 || !strings.Contains(o.Reasons[0].Text, damagedApp) {
		t.Errorf("outcome %+v does not name %s", o, damagedApp)
	}
}

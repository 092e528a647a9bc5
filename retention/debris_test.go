package retention_test

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

// TestLeftoverFailureCounts: a hidden release that cannot be deleted is a
// failure in the run that hid it and in every later run that cannot
// finish it.
func TestLeftoverFailureCounts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chattr +i needs root")
	}
	b := base(t)
	stuck := b.PkgPath(redis2) + "/MANIFEST"
	if err := exec.Command("chattr", "+i", stuck).Run(); err != nil {
		t.Skipf("chattr +i not available here: %v", err)
	}
	_, res := planAndApply(t, b.Root, retention.Policy{KeepLatest: 1}, fast)
	if !res.Partial() {
		t.Fatalf("first run: %+v", res)
	}
	hidden, _ := filepath.Glob(filepath.Join(filepath.Dir(b.PkgPath(redis2)), pkgstore.DebrisPrefix+"*", "MANIFEST"))
	if len(hidden) != 1 {
		t.Fatalf("hidden: %v", hidden)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", hidden[0]).Run() })
	_, res = planAndApply(t, b.Root, retention.Policy{KeepLatest: 1}, fast)
	if !res.Partial() || res.Failed != 1 {
		t.Fatalf("second run: failed %d, partial %v; the leftover could not be deleted", res.Failed, res.Partial())
	}
}

// TestDebrisIsOnlyOurDirectories: a name that looks like hab-gc's debris
// is only acted on when it is a directory whose name parses exactly;
// anything else is reported and never moved or deleted.
func TestDebrisIsOnlyOurDirectories(t *testing.T) {
	out := sentinel(t)
	vdir := "hab/pkgs/core/redis/5.0.1/"
	pending := pkgstore.DebrisPrefix + "pending-20210101000000-ABCDEFGHIJ"
	tests := []struct {
		name  string
		plant func(b *storetest.Builder) string // returns the planted name
	}{
		{"symlink to a directory", func(b *storetest.Builder) string {
			b.Symlink(out, vdir+pending)
			return pending
		}},
		{"regular file", func(b *storetest.Builder) string {
			b.File(vdir+pending, "not a release")
			return pending
		}},
		{"directory with a name hab-gc never makes", func(b *storetest.Builder) string {
			n := pkgstore.DebrisPrefix + "pending-20210101000000"
			b.File(vdir+n+"/TARGET", "x86_64-linux\n")
			return n
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasPrefix(tt.name, "symlink") {
				testtool.NeedSymlinks(t)
			}
			b := base(t)
			testtool.RemoveAll(b.PkgPath(redis2))
			// Something needs redis2, so an interrupted run's hidden copy
			// would be put back.
			oldPkg(b, "core/app/1/20200101000000", redis2)
			name := tt.plant(b)
			before, _ := os.Lstat(b.Path(vdir + name))
			p := planAt(t, b.Root, retention.Policy{KeepLatest: 1, AllowDamaged: true})
			applyPlan(t, p, b.Root, fast)
			if _, err := os.Lstat(b.PkgPath(redis2)); err == nil {
				t.Fatal("something was moved into the release's place")
			}
			after, err := os.Lstat(b.Path(vdir + name))
			if err != nil || after.Mode() != before.Mode() {
				t.Fatalf("the planted %s was moved or changed: %v", name, err)
			}
			checkSentinel(t, out)
		})
	}
}

func FuzzParseDebris(f *testing.F) {
	f.Add(pkgstore.DebrisPrefix + "pending-20210101000000-ABCDEFGHIJ")
	f.Add(pkgstore.DebrisPrefix + "doomed-x-ABCDEFGHIJ")
	f.Add(pkgstore.DebrisPrefix + "pending-20210101000000")
	f.Add(pkgstore.DebrisPrefix + "pending-a/b-ABCDEFGHIJ")
	f.Fuzz(func(t *testing.T, name string) {
		kind, release, ok := retention.ParseDebris(name)
		if !ok {
			return
		}
		if kind != "pending" && kind != "doomed" {
			t.Fatalf("kind %q", kind)
		}
		if strings.ContainsAny(release, "/\x00") || release == "" || release == "." || release == ".." {
			t.Fatalf("release %q from %q", release, name)
		}
		if !strings.HasPrefix(name, pkgstore.DebrisPrefix+kind+"-"+release+"-") || len(name) != len(pkgstore.DebrisPrefix+kind+"-"+release+"-")+10 {
			t.Fatalf("%q does not rebuild from %q, %q", name, kind, release)
		}
	})
}

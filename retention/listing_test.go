package retention_test

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// Two releases of core/dep: the old one is what acme/app needs, the new one
// is the newest, so keep-latest=1 alone would remove the old one.
const (
	depOld = "core/dep/1.0/20200101000000"
	depNew = "core/dep/2.0/20210101000000"
)

// refuses checks that the store's damage makes a plan refuse, with a
// blocking problem at path whose message holds every one of says. It
// returns the inventory.
func refuses(t *testing.T, b *storetest.Builder, path string, says ...string) *pkgstore.Inventory {
	t.Helper()
	inv := scanStore(t, b)
	_, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, nil, now, nil)
	var de *retention.DamagedError
	if !errors.As(err, &de) {
		t.Fatalf("plan not refused (err %v); problems: %v", err, inv.Problems)
	}
	for _, p := range de.Problems {
		if p.Path == path && containsAll(p.Message, says) {
			return inv
		}
	}
	t.Fatalf("no blocking problem at %s saying %q: %v", path, says, de.Problems)
	return nil
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// refusesThenKeeps is refuses, then checks that with AllowDamaged depOld
// is still kept.
func refusesThenKeeps(t *testing.T, b *storetest.Builder, path string, says ...string) {
	t.Helper()
	inv := refuses(t, b, path, says...)
	p, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge, AllowDamaged: true}, nil, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := decision(t, p, depOld); d.Action != retention.Keep {
		t.Fatalf("%s removed with --allow-damaged: %v", depOld, d.Reasons)
	}
}

// TestInvisibleCharactersInDeps: a DEPS or TDEPS line with a BOM, a
// zero-width space, a bidi control or another format character names no
// release Habitat could have written; it is malformed, and the run refuses
// naming the file and the line.
func TestInvisibleCharactersInDeps(t *testing.T) {
	for name, bad := range map[string]string{
		"BOM":              "\ufeff" + depOld,
		"zero width space": "core/dep/1.0\u200b/20200101000000",
		"RLO":              "core/\u202edep/1.0/20200101000000",
		"isolate":          "core/dep/\u20661.0/20200101000000",
		"soft hyphen":      "core/de\u00adp/1.0/20200101000000",
		"tag":              "core/dep/1.0/20200101000000\U000e0001",
	} {
		for _, file := range []string{"DEPS", "TDEPS"} {
			t.Run(name+"/"+file, func(t *testing.T) {
				b := storetest.New(t)
				oldPkg(b, depOld)
				oldPkg(b, depNew)
				rel := storetest.Release{Ident: "acme/app/1.0/20200101000000", ModTime: old,
					Deps: []string{"core/other/1/2", bad}, TDeps: []string{"core/other/1/2", bad}}
				if file == "DEPS" {
					rel.TDeps = []string{"core/other/1/2"}
				} else {
					rel.Deps = []string{"core/other/1/2"}
				}
				b.Add(rel)
				refuses(t, b, "hab/pkgs/acme/app/1.0/20200101000000/"+file, "line 2", "format character")
			})
		}
	}
}

// appNeedingDep adds depOld, depNew and acme/app at ident (which Habitat
// lists), needing depOld.
func appNeedingDep(t *testing.T, ident string) *storetest.Builder {
	b := storetest.New(t)
	oldPkg(b, depOld)
	oldPkg(b, depNew)
	oldPkg(b, ident, depOld)
	return b
}

// TestListingParity: every directory Habitat lists as an installed release
// is either a release to hab-gc, with every protection, or blocking damage
// whose readable DEPS and TDEPS lines still protect what they name.
func TestListingParity(t *testing.T) {
	outside := testtool.TempDir(t) + "/TARGET"
	if err := os.WriteFile(outside, []byte("x86_64-linux\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, ident string
		damage      func(b *storetest.Builder, dir string)
		path, says  string // of the blocking problem, path relative to the release
	}{
		{"version dir with a space", "acme/app/2.5.0 rc1/20200101000000", nil, "", "whitespace"},
		{"release dir with a space", "acme/app/1.0/2020 0101", nil, "", "whitespace"},
		{"release dir with a zero-width space", "acme/app/1.0/20200101000000\u200b", nil, "", "format character"},
		{"origin dir not UTF-8", "acme\xff/app/1.0/20200101000000", nil, "", "UTF-8"},
		{"name dir with a bidi override", "acme/\u202eppa/1.0/20200101000000", nil, "", "format character"},
		{"TARGET a symlink out of the store", "acme/app/1.0/20200101000000", func(b *storetest.Builder, dir string) {
			b.Remove(dir+"/TARGET").Symlink(outside, dir+"/TARGET")
		}, "/TARGET", "symlink"},
		{"TARGET a symlink within the release", "acme/app/1.0/20200101000000", func(b *storetest.Builder, dir string) {
			b.File(dir+"/TARGET.real", "x86_64-linux\n").Remove(dir+"/TARGET").Symlink("TARGET.real", dir+"/TARGET")
		}, "/TARGET", "symlink"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.name, "symlink") {
				testtool.NeedSymlinks(t)
			}
			if !utf8.ValidString(tt.ident) && runtime.GOOS == "windows" {
				t.Skip("Windows' names are UTF-16: a name that is not UTF-8 cannot be made there (Go writes \\xff as U+FFFD)")
			}
			b := appNeedingDep(t, tt.ident)
			dir := "hab/pkgs/" + tt.ident
			if tt.damage != nil {
				tt.damage(b, dir)
			}
			refusesThenKeeps(t, b, storePathOf(tt.ident)+tt.path, tt.says)
		})
	}
}

// storePathOf is the problem path of a release directory: hab/pkgs/IDENT,
// with bytes that are not UTF-8 as Go escapes.
func storePathOf(ident string) string {
	q := strconv.Quote(ident)
	if utf8.ValidString(ident) {
		return "hab/pkgs/" + ident
	}
	return "hab/pkgs/" + q[1:len(q)-1]
}

// TestUnreadableTargetAsNonRoot: a TARGET hab-gc cannot read (running as a
// user other than root) may be readable to Habitat run as root, which then
// lists the release: blocking damage, and its dependencies stay. As root,
// the check runs in a copy of this test binary with the privileges of
// nobody.
func TestUnreadableTargetAsNonRoot(t *testing.T) {
	const env = "HAB_GC_TEST_UNREADABLE_TARGET_ROOT"
	const app = "acme/app/1.0/20200101000000"
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no mode bits: Chmod(0) only sets the read-only attribute, and the file stays readable (an ACL denying reading would stand for it)")
	}
	if root := os.Getenv(env); root != "" {
		if os.Geteuid() == 0 {
			t.Fatal("child still runs as root")
		}
		refusesThenKeeps(t, &storetest.Builder{Root: root}, storePathOf(app)+"/TARGET", "unreadable by hab-gc", "permission denied")
		return
	}
	dir := testtool.TempDir(t)
	b := storetest.At(t, dir)
	oldPkg(b, depOld)
	oldPkg(b, depNew)
	oldPkg(b, app, depOld)
	b.Chmod("hab/pkgs/"+app+"/TARGET", 0)
	if os.Geteuid() != 0 {
		refusesThenKeeps(t, b, storePathOf(app)+"/TARGET", "unreadable by hab-gc", "permission denied")
		return
	}
	// Let nobody reach the store and run a copy of this binary.
	testtool.OpenToOthers(t, dir)
	bin := testtool.CopyTestBinary(t, dir, "retention.test")
	passAsNobody(t, bin, "TestUnreadableTargetAsNonRoot", env, dir)
}

// depOldRemoved is a store of depOld and depNew and a plan (keep the latest
// one) that removes depOld.
func depOldRemoved(t *testing.T) (*storetest.Builder, *retention.Plan) {
	t.Helper()
	b := storetest.New(t)
	oldPkg(b, depOld)
	oldPkg(b, depNew)
	p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
	if d := decision(t, p, depOld); d.Action != retention.Remove {
		t.Fatalf("plan keeps %s: %v", depOld, d.Reasons)
	}
	return b, p
}

// TestOpaqueDependentAtFinalCheck: a release Habitat lists but hab-gc
// cannot read, appearing while a release it names is hidden, puts that
// release back (its DEPS count as a new dependent).
func TestOpaqueDependentAtFinalCheck(t *testing.T) {
	b, p := depOldRemoved(t)
	opts := fast
	ran := false
	retention.SetHook(&opts, func(stage string, id pkgstore.Ident, hidden string) {
		if stage == "hidden" && id.String() == depOld {
			ran = true
			oldPkg(b, "acme/app/2.5.0 rc1/20200101000000", depOld)
		}
	})
	res := applyPlan(t, p, b.Root, opts)
	if !ran {
		t.Fatal("the hook never ran")
	}
	if o, _ := outcome(res, depOld); o.Status != retention.StatusKept || !hasReason(o.Reasons, retention.CodeNewDependent, "2.5.0 rc1") {
		t.Errorf("outcome %+v", o)
	}
	if !exists(b.PkgPath(depOld) + "/TARGET") {
		t.Error("not restored")
	}
}

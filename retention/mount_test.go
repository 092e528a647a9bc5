package retention_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

const codeMount = retention.Code("mount-point")

// mountKinds mount something at dir: a tmpfs, or a bind mount of a
// directory of the same file system (same st_dev, another mount ID).
var mountKinds = []struct {
	name  string
	mount func(t *testing.T, b *storetest.Builder, dir string)
}{
	{"tmpfs", func(t *testing.T, _ *storetest.Builder, dir string) {
		mountAt(t, dir, func() error { return mountTmpfs(dir) })
	}},
	{"bind mount of the same file system", func(t *testing.T, b *storetest.Builder, dir string) {
		src := b.Path("elsewhere/" + filepath.Base(dir) + itoa(len(t.Name())))
		if err := os.MkdirAll(src, 0o755); err != nil {
			t.Fatal(err)
		}
		mountAt(t, dir, func() error { return bindMount(src, dir) })
		if !sameDevice(src, dir) {
			t.Fatal("a bind mount should keep st_dev")
		}
	}},
}

// mountAt creates dir, mounts with do and puts a file inside that must
// survive; it skips when mounting is not possible here.
func mountAt(t *testing.T, dir string, do func() error) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := do(); err != nil {
		t.Skipf("cannot mount here (needs root and CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() { unmount(dir) })
	if err := os.WriteFile(filepath.Join(dir, "precious"), []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func checkPrecious(t *testing.T, dir string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(dir, "precious")); err != nil || string(b) != "keep me" {
		t.Fatalf("the file on the mount is gone or changed: %v", err)
	}
}

func hasReason(rs []retention.Reason, c retention.Code, says string) bool {
	for _, r := range rs {
		if r.Code == c && strings.Contains(r.Text, says) {
			return true
		}
	}
	return false
}

// TestMountPointKeepsRelease: a release with a mount point inside is kept
// by the plan (so dry runs, list and why show it) and by Apply; a mount
// that appears between the plan and Apply is found when Apply revalidates.
func TestMountPointKeepsRelease(t *testing.T) {
	for _, mk := range mountKinds {
		for _, afterPlan := range []bool{false, true} {
			name := mk.name + "/mounted before the plan"
			if afterPlan {
				name = mk.name + "/mounted after the plan"
			}
			t.Run(name, func(t *testing.T) {
				b := base(t)
				var p *retention.Plan
				if afterPlan {
					p = planAt(t, b.Root, retention.Policy{KeepLatest: 1})
				}
				dir := b.PkgPath(redis1) + "/config/deeper"
				mk.mount(t, b, dir)
				if !afterPlan {
					p = planAt(t, b.Root, retention.Policy{KeepLatest: 1})
					d := decision(t, p, redis1)
					if d.Action != retention.Keep || !hasCode(d, codeMount, "hab/pkgs/"+redis1+"/config/deeper") {
						t.Errorf("dry run: %s %+v", d.Action, d.Reasons)
					}
				}
				res := applyPlan(t, p, b.Root, fast)
				checkPrecious(t, dir)
				if !exists(b.PkgPath(redis1) + "/TARGET") {
					t.Error("the release with a mount point was removed")
				}
				if o, _ := outcome(res, redis1); afterPlan && (o.Status != retention.StatusKept || !hasReason(o.Reasons, codeMount, redis1+"/config/deeper")) {
					t.Errorf("outcome %+v", o)
				}
				if o, ok := outcome(res, redis2); !ok || o.Status != retention.StatusRemoved {
					t.Errorf("the rest should proceed: %+v", o)
				}
			})
		}
	}
}

// TestMountAtDeletion: a mount that appears after Apply revalidated and
// hid the release is found before anything is deleted: the release is put
// back, whole, and kept with reason mount-point.
func TestMountAtDeletion(t *testing.T) {
	for _, mk := range mountKinds {
		t.Run(mk.name, func(t *testing.T) {
			b := base(t)
			p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
			var mounted string
			opts := fast
			retention.SetHook(&opts, func(stage string, id pkgstore.Ident, hidden string) {
				if stage == "hidden" && id.String() == redis2 {
					mounted = b.Path("hab/pkgs/" + hidden + "/config")
					mk.mount(t, b, mounted)
					t.Cleanup(func() { unmount(b.PkgPath(redis2) + "/config") })
				}
			})
			res := applyPlan(t, p, b.Root, opts)
			if mounted == "" {
				t.Fatal("the hook never ran")
			}
			o, _ := outcome(res, redis2)
			if o.Status != retention.StatusKept || !hasReason(o.Reasons, codeMount, redis2+"/config") {
				t.Errorf("outcome %+v", o)
			}
			// Back in place, whole, the mount with it.
			checkPrecious(t, b.PkgPath(redis2)+"/config")
			if !exists(b.PkgPath(redis2) + "/TARGET") {
				t.Error("not restored")
			}
			if o, _ := outcome(res, redis1); o.Status != retention.StatusRemoved {
				t.Errorf("the rest should proceed: %+v", o)
			}
		})
	}
}

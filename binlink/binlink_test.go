//go:build unix

package binlink_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/binlink"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

var ctx = context.Background()

// release adds a release as Habitat installs one: its commands in bin
// (or the directories given as "dir/cmd") and a PATH metadata file
// listing those directories as absolute /hab/pkgs paths, the way
// hab-plan-build writes it (habitat-sh/habitat components/core/src/
// package/install.rs PackageInstall::paths reads it).
func release(b *storetest.Builder, id string, cmds ...string) {
	files := map[string]string{}
	var dirs []string
	for _, c := range cmds {
		if !strings.Contains(c, "/") {
			c = "bin/" + c
		}
		files[c] = "#!/bin/sh\n"
		d := "/hab/pkgs/" + id + "/" + filepath.Dir(c)
		if !strings.Contains(strings.Join(dirs, ":"), d) {
			dirs = append(dirs, d)
		}
	}
	files["PATH"] = strings.Join(dirs, ":") + "\n"
	b.Add(storetest.Release{Ident: id, Files: files})
}

func scan(t *testing.T, root string) (*pkgstore.Store, *pkgstore.Inventory) {
	t.Helper()
	store := storetest.Open(t, root)
	inv, err := store.Scan(ctx, pkgstore.Options{BinlinkDirs: []string{"bin", "usr/local/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	return store, inv
}

// staleRedisLink is a store with redis2 installed and bin/redis-server
// linked to redis1, which is not: its store (open) and the plan for it.
func staleRedisLink(t *testing.T, removeOnly bool) (*storetest.Builder, *pkgstore.Store, *binlink.Plan) {
	t.Helper()
	b := storetest.New(t)
	release(b, redis2, "redis-server")
	b.Binlink("bin", "redis-server", "/hab/pkgs/"+redis1+"/bin/redis-server")
	store, inv := scan(t, b.Root)
	plan, err := binlink.NewPlan(store, inv, binlink.Options{RemoveOnly: removeOnly})
	if err != nil {
		t.Fatal(err)
	}
	return b, store, plan
}

func readlink(t *testing.T, p string) string {
	t.Helper()
	s, err := os.Readlink(p)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return s
}

const (
	redis1 = "core/redis/6.2.5/20200101000000"
	redis2 = "core/redis/7.0.0/20210101000000"
	redis3 = "core/redis/7.2.0/20220101000000"
)

// TestRepair: each dangling binlink is relinked to the newest installed
// release of its package that has the command (on its PATH, as
// find_command_in_pkg looks), else removed; with RemoveOnly, removed.
// Links that lead somewhere, and links not into the store, are left as
// they are.
func TestRepair(t *testing.T) {
	cases := []struct {
		name       string
		removeOnly bool
		link       string // bin/NAME -> target
		target     string
		want       string // the link's target after Apply; "" for removed
		status     binlink.StepStatus
	}{
		{"relink to the newest release", false, "redis-server", "/hab/pkgs/" + redis1 + "/bin/redis-server", "/hab/pkgs/" + redis3 + "/bin/redis-server", binlink.StatusRelinked},
		{"relink to the newest that has it", false, "redis-cli", "/hab/pkgs/" + redis1 + "/bin/redis-cli", "/hab/pkgs/" + redis2 + "/bin/redis-cli", binlink.StatusRelinked},
		{"relink into sbin as PATH says", false, "redis-sentinel", "/hab/pkgs/" + redis1 + "/bin/redis-sentinel", "/hab/pkgs/" + redis3 + "/sbin/redis-sentinel", binlink.StatusRelinked},
		{"relink a link written with the FS root", false, "redis-fsroot", "FSROOT/hab/pkgs/" + redis1 + "/bin/redis-server", "/hab/pkgs/" + redis3 + "/bin/redis-server", binlink.StatusRelinked},
		{"file gone from an installed release", false, "redis-benchmark", "/hab/pkgs/" + redis3 + "/bin/redis-benchmark", "/hab/pkgs/" + redis2 + "/bin/redis-benchmark", binlink.StatusRelinked},
		{"no release has it", false, "redis-old", "/hab/pkgs/" + redis1 + "/bin/redis-old", "", binlink.StatusRemoved},
		{"whole package gone", false, "gone", "/hab/pkgs/core/gone/1.0/20190101000000/bin/gone", "", binlink.StatusRemoved},
		{"remove only", true, "redis-server", "/hab/pkgs/" + redis1 + "/bin/redis-server", "", binlink.StatusRemoved},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := storetest.New(t)
			release(b, redis2, "redis-server", "redis-cli", "redis-benchmark")
			release(b, redis3, "redis-server", "sbin/redis-sentinel", "sbin/redis-server")
			target := strings.Replace(c.target, "FSROOT", b.Root, 1)
			b.Binlink("bin", c.link, target).
				Binlink("bin", "ok", "/hab/pkgs/"+redis2+"/bin/redis-cli").
				Binlink("bin", "ls", "/usr/lib/nothing/ls")
			store, inv := scan(t, b.Root)
			plan, err := binlink.NewPlan(store, inv, binlink.Options{RemoveOnly: c.removeOnly})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Steps) != 1 || plan.Steps[0].Link != "bin/"+c.link {
				t.Fatalf("plan %+v; want one step, for bin/%s", plan.Steps, c.link)
			}
			lock(t, store)
			res, err := binlink.Apply(ctx, store, plan)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Outcomes) != 1 || res.Outcomes[0].Status != c.status {
				t.Fatalf("outcomes %+v; want %s", res.Outcomes, c.status)
			}
			p := b.Path("bin/" + c.link)
			if c.want == "" {
				if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("%s is still there (%v)", p, err)
				}
			} else if got := readlink(t, p); got != c.want {
				t.Fatalf("%s -> %s; want %s", p, got, c.want)
			}
			if got := readlink(t, b.Path("bin/ok")); got != "/hab/pkgs/"+redis2+"/bin/redis-cli" {
				t.Errorf("bin/ok -> %s: changed", got)
			}
			if got := readlink(t, b.Path("bin/ls")); got != "/usr/lib/nothing/ls" {
				t.Errorf("bin/ls (not into the store) -> %s: changed", got)
			}
			leftovers(t, b.Path("bin"))
		})
	}
}

// leftovers fails when Apply left a temporary name in dir.
func leftovers(t *testing.T, dir string) {
	t.Helper()
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".hab-gc") {
			t.Errorf("%s left in %s", e.Name(), dir)
		}
	}
}

// TestApplyLeavesWhatChanged: a link that changed between the plan and
// Apply (swapped for a regular file, pointed elsewhere, gone, its release
// installed again) is kept as it now is.
func TestApplyLeavesWhatChanged(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, b *storetest.Builder, link string)
		check  func(t *testing.T, link string)
		why    string
	}{
		{"swapped for a regular file", func(t *testing.T, b *storetest.Builder, link string) {
			os.Remove(link)
			if err := os.WriteFile(link, []byte("mine"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, link string) {
			if b, err := os.ReadFile(link); err != nil || string(b) != "mine" {
				t.Fatalf("%s: %q, %v; want the file untouched", link, b, err)
			}
		}, "no longer a symlink"},
		{"pointed elsewhere", func(t *testing.T, b *storetest.Builder, link string) {
			os.Remove(link)
			if err := os.Symlink("/opt/elsewhere", link); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, link string) {
			if got := readlink(t, link); got != "/opt/elsewhere" {
				t.Fatalf("%s -> %s", link, got)
			}
		}, "points to /opt/elsewhere"},
		{"removed", func(t *testing.T, b *storetest.Builder, link string) { os.Remove(link) },
			func(t *testing.T, link string) {
				if _, err := os.Lstat(link); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("%s: %v", link, err)
				}
			}, "gone"},
		{"release installed again", func(t *testing.T, b *storetest.Builder, link string) {
			release(b, redis1, "redis-server")
		}, func(t *testing.T, link string) {
			if got := readlink(t, link); got != "/hab/pkgs/"+redis1+"/bin/redis-server" {
				t.Fatalf("%s -> %s", link, got)
			}
		}, "target is there now"},
	}
	for _, c := range cases {
		for _, removeOnly := range []bool{false, true} {
			t.Run(c.name+map[bool]string{true: ", remove", false: ", relink"}[removeOnly], func(t *testing.T) {
				b, store, plan := staleRedisLink(t, removeOnly)
				link := b.Path("bin/redis-server")
				c.change(t, b, link)
				lock(t, store)
				res, err := binlink.Apply(ctx, store, plan)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Outcomes) != 1 || res.Outcomes[0].Status != binlink.StatusKept || !strings.Contains(res.Outcomes[0].Why, c.why) {
					t.Fatalf("outcomes %+v; want kept saying %q", res.Outcomes, c.why)
				}
				c.check(t, link)
				leftovers(t, b.Path("bin"))
			})
		}
	}
}

// TestSymlinkedBinlinkDir: a binlink directory that is a symlink is never
// written through. At plan time its links are left (saying so); swapped
// in after the plan, Apply refuses with ErrUnsafeDir and changes nothing,
// also in the other directories.
func TestSymlinkedBinlinkDir(t *testing.T) {
	t.Run("at plan time", func(t *testing.T) {
		b := storetest.New(t)
		release(b, redis2, "redis-server")
		b.Binlink("usr/bin", "redis-server", "/hab/pkgs/"+redis1+"/bin/redis-server").Symlink("usr/bin", "bin")
		store, inv := scan(t, b.Root)
		plan, err := binlink.NewPlan(store, inv, binlink.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Steps) != 1 || plan.Steps[0].Action != binlink.ActionLeave || !strings.Contains(plan.Steps[0].Reason, "is a symlink to usr/bin") {
			t.Fatalf("plan %+v; want bin/redis-server left: its directory is a symlink", plan.Steps)
		}
	})
	t.Run("swapped in after the plan", func(t *testing.T) {
		b := storetest.New(t)
		release(b, redis2, "redis-server")
		b.Binlink("bin", "redis-server", "/hab/pkgs/"+redis1+"/bin/redis-server").
			Binlink("usr/local/bin", "redis-server", "/hab/pkgs/"+redis1+"/bin/redis-server")
		store, inv := scan(t, b.Root)
		plan, err := binlink.NewPlan(store, inv, binlink.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if plan.Changes() != 2 {
			t.Fatalf("plan %+v; want two relinks", plan.Steps)
		}
		elsewhere := filepath.Join(testtool.TempDir(t), "bin")
		if err := os.Rename(b.Path("usr/local/bin"), elsewhere); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, b.Path("usr/local/bin")); err != nil {
			t.Fatal(err)
		}
		lock(t, store)
		res, err := binlink.Apply(ctx, store, plan)
		if !errors.Is(err, binlink.ErrUnsafeDir) || res != nil {
			t.Fatalf("Apply: %+v, %v; want ErrUnsafeDir", res, err)
		}
		for _, p := range []string{b.Path("bin/redis-server"), filepath.Join(elsewhere, "redis-server")} {
			if got := readlink(t, p); got != "/hab/pkgs/"+redis1+"/bin/redis-server" {
				t.Errorf("%s -> %s: changed by a refused Apply", p, got)
			}
		}
	})
}

// TestDryRunWritesNothing: planning (the dry run) changes nothing on
// disk, and Apply without the store's lock changes nothing either.
func TestDryRunWritesNothing(t *testing.T) {
	b := storetest.New(t)
	release(b, redis2, "redis-server")
	b.Binlink("bin", "redis-server", "/hab/pkgs/"+redis1+"/bin/redis-server").
		Binlink("bin", "gone", "/hab/pkgs/core/gone/1/2/bin/gone")
	before := snapshot(t, b.Root)
	store, inv := scan(t, b.Root)
	plan, err := binlink.NewPlan(store, inv, binlink.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Changes() != 2 {
		t.Fatalf("plan %+v; want two changes", plan.Steps)
	}
	if _, err := binlink.Apply(ctx, store, plan); !errors.Is(err, pkgstore.ErrNotLocked) {
		t.Fatalf("Apply without the lock: %v; want ErrNotLocked", err)
	}
	if after := snapshot(t, b.Root); after != before {
		t.Fatalf("the tree changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// snapshot lists every name under root with its kind, link target, size
// and modification time.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var sb strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		sb.WriteString(p + " " + fi.Mode().String() + " " + fi.ModTime().String())
		if d.Type()&fs.ModeSymlink != 0 {
			sb.WriteString(" -> " + readlink(t, p))
		}
		sb.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// TestApplyRaceSwap: a link swapped for a regular file or another
// symlink after Apply checked it and before it changes it (the moment no
// check can close) is put back as it was found: the exchange (relink) or
// the move aside (removal) is checked on the directory's descriptor and
// undone. (A symlink with the same target in its place is the same
// dangling link as far as anyone can tell, inode numbers being reused.)
func TestApplyRaceSwap(t *testing.T) {
	for _, removeOnly := range []bool{false, true} {
		for _, file := range []bool{true, false} {
			name := map[bool]string{true: "relink", false: "remove"}[!removeOnly] + map[bool]string{true: ", a regular file", false: ", another symlink"}[file]
			t.Run(name, func(t *testing.T) {
				b, store, plan := staleRedisLink(t, removeOnly)
				link := b.Path("bin/redis-server")
				binlink.SetBeforeChange(plan, func(string) {
					os.Remove(link)
					var err error
					if file {
						err = os.WriteFile(link, []byte("mine"), 0o755)
					} else {
						err = os.Symlink("/opt/mine", link)
					}
					if err != nil {
						t.Fatal(err)
					}
				})
				lock(t, store)
				res, err := binlink.Apply(ctx, store, plan)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Outcomes) != 1 || res.Outcomes[0].Status != binlink.StatusKept || !strings.Contains(res.Outcomes[0].Why, "changed while being") {
					t.Fatalf("outcomes %+v; want kept: changed while being changed", res.Outcomes)
				}
				if file {
					if b, err := os.ReadFile(link); err != nil || string(b) != "mine" {
						t.Fatalf("%s: %q, %v; want the file put back untouched", link, b, err)
					}
				} else if got := readlink(t, link); got != "/opt/mine" {
					t.Fatalf("%s -> %s; want the other link put back", link, got)
				}
				leftovers(t, b.Path("bin"))
			})
		}
	}
}

// TestPlanAdversarialMetadata: the release's PATH metadata and the
// command it names are read without blocking and never through a symlink
// out of the store. A PATH that is a FIFO or a symlink, a PATH entry
// outside the release (Habitat's pkg_prefix filter), a command that is a
// FIFO or a symlink out of the store: none is a command, so the planner
// goes down to the next release that has it (here, the older one).
func TestPlanAdversarialMetadata(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, b *storetest.Builder, rel string)
	}{
		{"PATH is a FIFO", func(t *testing.T, b *storetest.Builder, rel string) {
			os.Remove(b.Path(rel + "/PATH"))
			if err := unix.Mkfifo(b.Path(rel+"/PATH"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"PATH is a symlink", func(t *testing.T, b *storetest.Builder, rel string) {
			os.Remove(b.Path(rel + "/PATH"))
			b.File(rel+"/PATH.real", "/hab/pkgs/"+redis3+"/bin\n").Symlink("PATH.real", rel+"/PATH")
		}},
		{"PATH names a directory outside the release", func(t *testing.T, b *storetest.Builder, rel string) {
			other := "core/other/1/20200101000000"
			release(b, other, "redis-server")
			b.File(rel+"/PATH", "/hab/pkgs/"+other+"/bin:/usr/bin:/hab/pkgs/"+redis3+"/../../../../../"+other+"/bin\n")
		}},
		{"the command is a FIFO", func(t *testing.T, b *storetest.Builder, rel string) {
			os.Remove(b.Path(rel + "/bin/redis-server"))
			if err := unix.Mkfifo(b.Path(rel+"/bin/redis-server"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"the command is a symlink out of the store", func(t *testing.T, b *storetest.Builder, rel string) {
			outside := filepath.Join(testtool.TempDir(t), "redis-server")
			if err := os.WriteFile(outside, []byte("x"), 0o755); err != nil {
				t.Fatal(err)
			}
			os.Remove(b.Path(rel + "/bin/redis-server"))
			b.Symlink(outside, rel+"/bin/redis-server")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := storetest.New(t)
			release(b, redis2, "redis-server")
			release(b, redis3, "redis-server")
			c.setup(t, b, "hab/pkgs/"+redis3)
			b.Binlink("bin", "redis-server", "/hab/pkgs/"+redis1+"/bin/redis-server")
			store, inv := scan(t, b.Root)
			done := make(chan *binlink.Plan, 1)
			go func() {
				plan, err := binlink.NewPlan(store, inv, binlink.Options{})
				if err != nil {
					t.Error(err)
				}
				done <- plan
			}()
			var plan *binlink.Plan
			select {
			case plan = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("NewPlan blocked")
			}
			if len(plan.Steps) != 1 || plan.Steps[0].Action != binlink.ActionRelink || plan.Steps[0].NewTarget != "/hab/pkgs/"+redis2+"/bin/redis-server" {
				t.Fatalf("plan %+v; want a relink to %s", plan.Steps, redis2)
			}
		})
	}
}

// TestApplyCancelled: a cancelled context stops Apply before the first
// change; it returns the context's error and changes nothing.
func TestApplyCancelled(t *testing.T) {
	b := storetest.New(t)
	release(b, redis2, "redis-server")
	b.Binlink("bin", "redis-server", "/hab/pkgs/"+redis1+"/bin/redis-server")
	store, inv := scan(t, b.Root)
	plan, err := binlink.NewPlan(store, inv, binlink.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lock(t, store)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	res, err := binlink.Apply(cctx, store, plan)
	if !errors.Is(err, context.Canceled) || res == nil || len(res.Outcomes) != 0 {
		t.Fatalf("Apply: %+v, %v; want context.Canceled and no outcome", res, err)
	}
	if got := readlink(t, b.Path("bin/redis-server")); got != "/hab/pkgs/"+redis1+"/bin/redis-server" {
		t.Fatalf("bin/redis-server -> %s: changed", got)
	}
}

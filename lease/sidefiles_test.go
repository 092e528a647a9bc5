package lease_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/lease"
	"github.com/hab-gc/hab-gc/pkgstore"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// holdLease starts a real process that takes a lease on idents under
// root (TestMain's helper) and returns once it holds it; it is killed at
// the end of the test.
func holdLease(t *testing.T, root string, idents ...string) {
	t.Helper()
	holdHelper(t, helperEnv+"="+root, idents...)
}

// holdFlock starts a real process that holds an exclusive flock on file
// (not a lease: any program's lock, a DHCP client's say).
func holdFlock(t *testing.T, file string) {
	t.Helper()
	holdHelper(t, flockEnv+"="+file)
}

func holdHelper(t *testing.T, env string, args ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		t.Fatalf("helper: %q", line)
	}
}

// tree lists every path under dir with its content, to compare before and
// after.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		line := p + " " + d.Type().String()
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += " " + string(b)
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeFile(t *testing.T, name, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Reading the leases changes nothing: a dead lease (its holder gone) is
// counted, not removed, so that list, why and a dry run, which say they
// change nothing, do not.
func TestReadRemovesNothing(t *testing.T) {
	root := storeRoot(t)
	holdLease(t, root, "core/redis/7.0.0/20220101000000")
	writeFile(t, filepath.Join(lease.Dir(root), "0000dead.lease"), "# pid 1: gone\ncore/zlib\n")
	before := tree(t, root)
	live, dead, err := lease.Read(root)
	if err != nil || len(live) != 1 || dead != 1 {
		t.Fatalf("Read: live %+v dead %d %v, want 1 live, 1 dead", live, dead, err)
	}
	if after := tree(t, root); !slices.Equal(before, after) {
		t.Fatalf("Read changed the lease directory:\nbefore %q\nafter  %q", before, after)
	}
}

// The lease directory is never reached through a symlink: with it (or
// hab-gc's directory above it) a symlink to another directory,
// Read and Acquire refuse, naming it, and the files there, locked or not,
// are left as they are.
func TestSymlinkedLeaseDir(t *testing.T) {
	testtool.NeedSymlinks(t)
	for _, link := range []string{
		lease.RelDir,
		filepath.Dir(lease.RelDir), // hab/sup/default/hab-gc
	} {
		t.Run(link, func(t *testing.T) {
			root, other := testtool.TempDir(t), testtool.TempDir(t)
			if err := os.MkdirAll(filepath.Join(root, "hab", "pkgs"), 0o755); err != nil {
				t.Fatal(err)
			}
			// The other directory: a DHCP client's lease files, one of
			// them locked by a live process.
			target := other
			if rest, _ := filepath.Rel(link, lease.RelDir); rest != "." {
				target = filepath.Join(other, "elsewhere")
				writeFile(t, filepath.Join(target, rest, "eth0.lease"), "lease { interface \"eth0\"; }\n")
				writeFile(t, filepath.Join(target, rest, "eth1.lease"), "lease { interface \"eth1\"; }\n")
				holdFlock(t, filepath.Join(target, rest, "eth1.lease"))
			} else {
				writeFile(t, filepath.Join(target, "eth0.lease"), "lease { interface \"eth0\"; }\n")
				writeFile(t, filepath.Join(target, "eth1.lease"), "lease { interface \"eth1\"; }\n")
				holdFlock(t, filepath.Join(target, "eth1.lease"))
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, link)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
				t.Fatal(err)
			}
			before := tree(t, other)
			_, _, err := lease.Read(root)
			if !errors.Is(err, lease.ErrSymlink) || !errors.Is(err, lease.ErrBadLease) {
				t.Errorf("Read: %v, want ErrSymlink and ErrBadLease", err)
			}
			acquireRefused(t, root, "")
			if after := tree(t, other); !slices.Equal(before, after) {
				t.Fatalf("the directory the symlink leads to changed:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// Habitat's own directories above hab-gc's are read as the store's path
// is: an FS root whose hab is a symlink (moved to a larger disk) still
// has its leases read, so what they protect stays protected. But nothing
// is written through it: Sweep removes no dead lease
// there, and Acquire makes no lease, both failing with ErrSymlink.
func TestHabSymlinkReadNotWritten(t *testing.T) {
	testtool.NeedSymlinks(t)
	root, real := testtool.TempDir(t), testtool.TempDir(t)
	moved := filepath.Join(real, "hab")
	if err := os.MkdirAll(filepath.Join(moved, "pkgs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, filepath.Join(root, "hab")); err != nil {
		t.Fatal(err)
	}
	holdLease(t, real, "core/zlib")
	writeFile(t, filepath.Join(moved, "sup/default/hab-gc/leases/0000dead.lease"), "core/zlib\n")
	if live, dead, err := lease.Read(root); err != nil || len(live) != 1 || dead != 1 {
		t.Fatalf("Read: %+v %d %v, want 1 live and 1 dead", live, dead, err)
	}
	before := tree(t, real)
	if n, err := lease.Sweep(root); !errors.Is(err, lease.ErrSymlink) || n != 0 {
		t.Errorf("Sweep: %d %v, want 0 removed and ErrSymlink", n, err)
	}
	acquireRefused(t, root, "")
	if after := tree(t, real); !slices.Equal(before, after) {
		t.Fatalf("written through the symlinked hab:\nbefore %q\nafter  %q", before, after)
	}
}

// With hab, hab/sup or hab/sup/default a symlink to a
// directory outside the FS root (holding what was there), Acquire makes
// no lease and no directory there and Sweep removes no dead lease there:
// both fail naming the symlink (ErrSymlink). Only the last two levels
// (hab-gc, leases) were checked before.
func TestNoLeaseBelowSymlinkedDir(t *testing.T) {
	testtool.NeedSymlinks(t)
	for _, link := range []string{"hab", "hab/sup", "hab/sup/default"} {
		t.Run(link, func(t *testing.T) {
			root, outside := testtool.TempDir(t), testtool.TempDir(t)
			if err := os.MkdirAll(filepath.Join(root, "hab", "pkgs"), 0o755); err != nil {
				t.Fatal(err)
			}
			at, moved := filepath.Join(root, link), filepath.Join(outside, "moved")
			if err := os.MkdirAll(at, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(at, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, at); err != nil {
				t.Fatal(err)
			}
			for _, create := range []bool{false, true} {
				if create {
					writeFile(t, filepath.Join(root, lease.RelDir, "0000dead.lease"), "core/zlib\n")
				}
				before := tree(t, outside)
				acquireRefused(t, root, at)
				if n, err := lease.Sweep(root); create && (!errors.Is(err, lease.ErrSymlink) || n != 0) {
					t.Errorf("Sweep: %d %v, want 0 removed and ErrSymlink", n, err)
				}
				if after := tree(t, outside); !slices.Equal(before, after) {
					t.Errorf("written through the symlink %s:\nbefore %q\nafter  %q", at, before, after)
				}
			}
		})
	}
}

// Sweep removes the dead leases, and only those: a live one stays live.
func TestSweep(t *testing.T) {
	root := storeRoot(t)
	holdLease(t, root, "core/redis/7.0.0/20220101000000")
	dead := filepath.Join(lease.Dir(root), "0000dead.lease")
	writeFile(t, dead, "# pid 1: gone\ncore/zlib\n")
	writeFile(t, filepath.Join(lease.Dir(root), "notes.txt"), "not a lease\n")
	if n, err := lease.Sweep(root); err != nil || n != 1 {
		t.Fatalf("Sweep: %d %v, want 1", n, err)
	}
	if _, err := os.Lstat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the dead lease is still there: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(lease.Dir(root), "notes.txt")); err != nil {
		t.Fatalf("a file that is not a lease was removed: %v", err)
	}
	if live, dead, err := lease.Read(root); err != nil || len(live) != 1 || dead != 0 {
		t.Fatalf("Read after Sweep: %+v %d %v", live, dead, err)
	}
}

// No store, no lease: Acquire on an FS root without hab/pkgs (a typo)
// refuses and creates nothing.
func TestAcquireNeedsStore(t *testing.T) {
	for _, name := range []string{"missing", "empty"} {
		t.Run(name, func(t *testing.T) {
			w := testtool.TempDir(t)
			root := filepath.Join(w, "fs")
			if name == "empty" {
				if err := os.Mkdir(root, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			before := tree(t, w)
			l, err := lease.Acquire(root, "test", ids("core/zlib")...)
			if err == nil {
				l.Release()
				t.Fatal("Acquire without a store succeeded")
			}
			if !errors.Is(err, pkgstore.ErrNoStore) {
				t.Errorf("Acquire: %v, want pkgstore.ErrNoStore", err)
			}
			if after := tree(t, w); !slices.Equal(before, after) {
				t.Fatalf("Acquire changed the file system:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// acquireRefused checks that Acquire of a lease on core/zlib under root
// fails with ErrSymlink, naming "at is a symlink" when at is not empty
// (a lease it made after all is released).
func acquireRefused(t *testing.T, root, at string) {
	t.Helper()
	l, err := lease.Acquire(root, "test", ids("core/zlib")...)
	if errors.Is(err, lease.ErrSymlink) && (at == "" || strings.Contains(err.Error(), at+" is a symlink")) {
		return
	}
	if l != nil {
		l.Release()
	}
	if at == "" {
		t.Errorf("Acquire: %v, want ErrSymlink", err)
	} else {
		t.Errorf("Acquire: %v, want ErrSymlink naming %s", err, at)
	}
}

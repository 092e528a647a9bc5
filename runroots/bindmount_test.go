//go:build linux

package runroots_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
)

// bindMount bind-mounts src at dst (created) and unmounts it when the test
// ends. It skips the test when mounting is not allowed.
func bindMount(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(src, dst, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount %s (needs root and CAP_SYS_ADMIN): %v", src, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dst, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmounting %s: %v", dst, err)
		}
	})
}

// chrootFS makes a root file system in which the store under fsRoot is
// bind-mounted at /hab/pkgs (as a container or a chroot built around
// Habitat has it), with the host's /usr bind-mounted for the programs'
// libraries and the host's /bin, /lib... symlinks or mounts copied.
func chrootFS(t *testing.T, fsRoot string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: bind mounts and chroot")
	}
	rootfs := t.TempDir()
	bindMount(t, filepath.Join(fsRoot, pkgstore.StoreDir), filepath.Join(rootfs, "hab", "pkgs"))
	bindMount(t, "/usr", filepath.Join(rootfs, "usr"))
	for _, d := range []string{"bin", "sbin", "lib", "lib32", "lib64", "libx32"} {
		fi, err := os.Lstat("/" + d)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink("/" + d)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(rootfs, d)); err != nil {
				t.Fatal(err)
			}
		case fi.IsDir():
			bindMount(t, "/"+d, filepath.Join(rootfs, d))
		}
	}
	return rootfs
}

// TestScanBindMountedStore: a process chrooted into a
// root file system that has the store bind-mounted at /hab/pkgs (same mount
// namespace) shows the release under another path (ROOTFS/hab/pkgs/...)
// in exe, fd, maps and cwd, and names /hab/pkgs/... in its environment.
// Each is matched by the identity (device and inode) of the release
// directory, and the release is kept.
func TestScanBindMountedStore(t *testing.T) {
	b := appStore(t)
	rootfs := chrootFS(t, b.Root)
	inside := "/hab/pkgs/" + oldApp // the release as the chrooted process names it
	sleep := "/usr/bin/" + filepath.Base(proctest.Sleep(t))
	if _, err := os.Stat(rootfs + sleep); err != nil {
		t.Skip("no sleep under /usr/bin to run in the chroot:", err)
	}
	chrooted := func(t *testing.T, cmd *exec.Cmd) *proctest.Proc {
		t.Helper()
		cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: rootfs}
		if cmd.Dir == "" {
			cmd.Dir = "/"
		}
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %v in the chroot: %v", cmd.Args, err)
		}
		p := &proctest.Proc{Cmd: cmd}
		t.Cleanup(p.Stop)
		return p
	}
	cases := []struct {
		name  string
		start func(t *testing.T) *proctest.Proc
		kind  runroots.Kind
		want  string
	}{
		{"executable", func(t *testing.T) *proctest.Proc {
			return chrooted(t, &exec.Cmd{Path: inside + "/bin/app", Args: []string{"app", "600"}})
		}, runroots.KindExe, "executes bin/app of it"},
		{"open file", func(t *testing.T) *proctest.Proc {
			f, err := os.Open(rootfs + inside + "/share/data.txt")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			return chrooted(t, &exec.Cmd{Path: sleep, Args: []string{"sleep", "600"}, ExtraFiles: []*os.File{f}})
		}, runroots.KindFD, "has share/data.txt open"},
		{"working directory", func(t *testing.T) *proctest.Proc {
			return chrooted(t, &exec.Cmd{Path: sleep, Args: []string{"sleep", "600"}, Dir: inside + "/share"})
		}, runroots.KindCwd, "working directory in it (share)"},
		{"environment", func(t *testing.T) *proctest.Proc {
			return chrooted(t, &exec.Cmd{Path: sleep, Args: []string{"sleep", "600"}, Env: []string{"PATH=" + inside + "/bin:/usr/bin"}})
		}, runroots.KindEnv, "in its environment (PATH)"},
		{"mapped through the bind mount", func(t *testing.T) *proctest.Proc {
			return proctest.Start(t, proctest.Map, rootfs+inside+"/lib/libapp.so")
		}, runroots.KindMap, "has lib/libapp.so mapped"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.start(t)
			uses := usesOf(t, b.Root, p.PID())
			found := false
			for _, u := range uses {
				if u.Kind == tc.kind && u.Ident.String() == oldApp && strings.HasSuffix(u.String(), tc.want) {
					found = true
				}
			}
			if !found {
				t.Fatalf("uses of process %d: %+v; want %s %q", p.PID(), uses, tc.kind, tc.want)
			}
		})
	}
	t.Run("plan keeps it", func(t *testing.T) {
		chrooted(t, &exec.Cmd{Path: inside + "/bin/app", Args: []string{"app", "600"}})
		_, plan := planKeepLatest1(t, b.Root)
		if d, _ := plan.Decision(pkgstore.MustParseIdent(oldApp)); d.Action != retention.Keep || !hasReason(d.Reasons, retention.CodeInUse, "executes bin/app of it") {
			t.Fatalf("%s, run in a chroot through a bind mount: %s %+v", oldApp, d.Action, d.Reasons)
		}
	})
}

// TestScanStoreInOtherMountNamespace: a process in a mount namespace of its
// own, chrooted into a root file system with the store bind-mounted at
// /hab/pkgs there only, runs a release's program. Its exe shows a path
// that does not exist in the scanner's namespace; the file's own device
// and inode (through /proc/PID/exe) match the store's.
func TestScanStoreInOtherMountNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: mount namespaces, bind mounts and chroot")
	}
	tools := map[string]string{}
	for _, tool := range []string{"unshare", "mount", "chroot", "sh"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("needs %s (util-linux, coreutils): %v", tool, err)
		}
		tools[tool] = p
	}
	b := appStore(t)
	rootfs := t.TempDir()
	for _, d := range []string{"hab/pkgs", "usr"} {
		if err := os.MkdirAll(filepath.Join(rootfs, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"bin", "sbin", "lib", "lib32", "lib64", "libx32"} {
		if target, err := os.Readlink("/" + d); err == nil {
			if err := os.Symlink(target, filepath.Join(rootfs, d)); err != nil {
				t.Fatal(err)
			}
		}
	}
	inside := "/hab/pkgs/" + oldApp
	script := fmt.Sprintf("%s --bind %s %s/hab/pkgs && %s --bind /usr %s/usr && exec %s %s %s/bin/app 600",
		tools["mount"], filepath.Join(b.Root, pkgstore.StoreDir), rootfs, tools["mount"], rootfs, tools["chroot"], rootfs, inside)
	cmd := exec.Command(tools["unshare"], "--mount", "--propagation", "private", tools["sh"], "-c", script)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proctest.Proc{Cmd: cmd}
	t.Cleanup(p.Stop)
	// Wait until the program runs (exe is the release's bin/app).
	deadline := time.Now().Add(10 * time.Second)
	for {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", p.PID())); strings.HasSuffix(exe, "/bin/app") {
			if _, err := os.Stat(exe); err == nil {
				t.Fatalf("%s exists in the scanner's namespace too: the test proves nothing", exe)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the namespaced program did not start: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, u := range usesOf(t, b.Root, p.PID()) {
		if u.Kind == runroots.KindExe && u.Ident.String() == oldApp {
			return
		}
	}
	t.Fatalf("uses of process %d: %+v; want it to execute %s", p.PID(), usesOf(t, b.Root, p.PID()), oldApp)
}

//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// check works on a read-only store: with the lock file there it takes the
// lock shared; without it (it cannot be created) it checks unlocked and
// says so.
func TestCheckReadOnlyStore(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to bind-mount the store read-only")
	}
	for _, withLockFile := range []bool{false, true} {
		name := map[bool]string{false: "no lock file", true: "lock file present"}[withLockFile]
		t.Run(name, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg("core/a/1/20200101000000")
			if withLockFile {
				storetest.HoldLock(t, b.Root)()
			}
			ro := storetest.ReadOnly(t, b.Root)
			var stdout, stderr bytes.Buffer
			code := execute([]string{"check", "--fs-root", ro}, &stdout, &stderr, noEnv)
			if code != exitOK || !strings.Contains(stdout.String(), "OK: 1 release,") {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
			}
			notice := strings.Contains(stderr.String(), "without the store's lock")
			if notice == withLockFile {
				t.Errorf("stderr %q: a notice about checking unlocked is expected exactly when there is no lock file", stderr.String())
			}
		})
	}
}

// check works for a user who can read the store but not write it, and
// cannot open root's lock file.
func TestCheckAsNonRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the check as another user")
	}
	for _, withLockFile := range []bool{false, true} {
		name := map[bool]string{false: "no lock file", true: "root's lock file"}[withLockFile]
		t.Run(name, func(t *testing.T) {
			// Everything the user needs must be reachable: a world-readable
			// directory outside the test's private temporary ones.
			dir := testtool.WorldTempDir(t, "hab-gc-nonroot-")
			bin := testtool.CopyTestBinary(t, dir, "hab-gc")
			b := storetest.At(t, filepath.Join(dir, "fs"))
			b.Pkg("core/a/1/20200101000000")
			b.Chmod("hab/pkgs", 0o555)
			if withLockFile {
				b.Chmod("hab/pkgs", 0o755)
				storetest.HoldLock(t, b.Root)()
				b.Chmod("hab/pkgs", 0o555)
			}
			var stdout, stderr bytes.Buffer
			cmd := &exec.Cmd{Path: bin, Args: []string{"hab-gc", "check", "--fs-root", b.Root}, Stdout: &stdout, Stderr: &stderr,
				Dir: dir, Env: []string{"PATH=/usr/bin:/bin"},
				SysProcAttr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}}
			err := cmd.Run()
			if err != nil || !strings.Contains(stdout.String(), "OK: 1 release,") || !strings.Contains(stderr.String(), "without the store's lock") {
				t.Fatalf("%v; stdout %q, stderr %q", err, stdout.String(), stderr.String())
			}
			if _, err := os.Lstat(b.Path("hab/pkgs/" + pkgstore.LockFile)); (err == nil) != withLockFile {
				t.Errorf("lock file created or lost: %v", err)
			}
		})
	}
}

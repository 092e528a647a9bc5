//go:build unix

package pkgstore_test

import (
	"errors"
	"io/fs"
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

// TestOpenErrorsSayWhy: every error Open returns wraps
// ErrNoStore and the file system's own error, so that a caller tells "not
// mounted yet" (fs.ErrNotExist), "not a directory" (syscall.ENOTDIR) and
// "permission denied" (fs.ErrPermission) apart.
func TestOpenErrorsSayWhy(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pkgsFile := filepath.Join(dir, "pkgsfile")
	if err := os.MkdirAll(filepath.Join(pkgsFile, "hab"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkgsFile, "hab", "pkgs"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, root string
		cause      error
	}{
		{"missing FS root", filepath.Join(dir, "nope"), fs.ErrNotExist},
		{"FS root is a file", file, syscall.ENOTDIR},
		{"no hab/pkgs", dir, fs.ErrNotExist},
		{"hab/pkgs is a file", pkgsFile, syscall.ENOTDIR},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pkgstore.Open(tc.root)
			if !errors.Is(err, pkgstore.ErrNoStore) || !errors.Is(err, tc.cause) {
				t.Fatalf("Open(%s) = %v, want an error wrapping ErrNoStore and %v", tc.root, err, tc.cause)
			}
			for _, other := range []error{fs.ErrNotExist, syscall.ENOTDIR, fs.ErrPermission} {
				if other != tc.cause && errors.Is(err, other) {
					t.Errorf("Open(%s) = %v also wraps %v", tc.root, err, other)
				}
			}
		})
	}
	t.Run("hab/pkgs mode 000", openDenied)
}

// openDenied checks Open on a store whose hab/pkgs is mode 000. Root
// reads everything, so as root the check runs in a copy of this test
// binary with the privileges of nobody.
func openDenied(t *testing.T) {
	const env = "HAB_GC_TEST_OPEN_DENIED_ROOT"
	check := func(t *testing.T, root string) {
		_, err := pkgstore.Open(root)
		if !errors.Is(err, pkgstore.ErrNoStore) || !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("Open(%s) = %v, want an error wrapping ErrNoStore and fs.ErrPermission", root, err)
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			t.Fatalf("Open(%s) = %v also wraps another cause", root, err)
		}
	}
	if root := os.Getenv(env); root != "" {
		if os.Geteuid() == 0 {
			t.Fatal("child still runs as root")
		}
		check(t, root)
		return
	}
	dir := t.TempDir()
	b := storetest.At(t, dir).Pkg("core/a/1/1").Chmod("hab/pkgs", 0)
	t.Cleanup(func() { os.Chmod(b.Path("hab/pkgs"), 0o755) })
	if os.Geteuid() != 0 {
		check(t, dir)
		return
	}
	// Let nobody reach the FS root and run a copy of this binary.
	testtool.OpenToOthers(t, dir)
	bin := testtool.CopyTestBinary(t, dir, "pkgstore.test")
	cmd := exec.Command(bin, "-test.run=^TestOpenErrorsSayWhy$/^hab/pkgs_mode_000$", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+dir)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestOpenErrorsSayWhy/hab/pkgs_mode_000") {
		t.Fatalf("child did not run the check:\n%s", out)
	}
}

//go:build windows

package retention_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// windowsStore lays out a store as Habitat does on Windows: target
// x86_64-windows, programs and DLLs under bin, read-only metadata (as an
// archive unpacked with its modes may leave it), three releases of
// core/redis.
func windowsStore(t *testing.T) *storetest.Builder {
	b := storetest.New(t)
	for _, id := range []string{redis1, redis2, redis3} {
		b.Add(storetest.Release{Ident: id, Target: "x86_64-windows", ModTime: old, Files: map[string]string{
			"bin/redis-server.exe": "MZ", "bin/redis-cli.exe": "MZ", "bin/libssl-1_1-x64.dll": "MZ", "config/redis.conf": "port 6379\n"}})
		if err := os.Chmod(filepath.Join(b.PkgPath(id), "IDENT"), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func applyWindows(t *testing.T, root string) *retention.Result {
	t.Helper()
	s, err := pkgstore.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inv, err := s.Scan(context.Background(), pkgstore.Options{Target: "x86_64-windows"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, nil, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Apply(context.Background(), s, fast)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestApplyWindowsStore: releases go whole (read-only files included),
// their empty directories with them, the newest stays.
func TestApplyWindowsStore(t *testing.T) {
	b := windowsStore(t)
	res := applyWindows(t, b.Root)
	if res.Removed != 2 || res.Failed != 0 {
		t.Fatalf("result %+v, want 2 removed", res)
	}
	for _, gone := range []string{redis1, redis2} {
		if exists(b.PkgPath(gone)) {
			t.Errorf("%s still there", gone)
		}
	}
	if !exists(b.PkgPath(redis3) + "/bin/redis-server.exe") {
		t.Errorf("%s was removed", redis3)
	}
}

// TestApplyKeepsReleaseHeldOpen: Windows holds a running program's image
// and its DLLs open without FILE_SHARE_DELETE, so the directory of a
// release a process runs cannot be moved: Apply keeps that release,
// saying it is in use, and removes the others. Here the test holds the DLL
// open so; on a Windows machine a running redis-server.exe does.
func TestApplyKeepsReleaseHeldOpen(t *testing.T) {
	b := windowsStore(t)
	held := filepath.Join(b.PkgPath(redis1), "bin", "libssl-1_1-x64.dll")
	p, _ := windows.UTF16PtrFromString(held)
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	res := applyWindows(t, b.Root)
	o, ok := outcome(res, redis1)
	if !ok || o.Status != retention.StatusKept || len(o.Reasons) == 0 || o.Reasons[0].Code != retention.CodeInUse ||
		!strings.Contains(o.Reasons[0].Text, "libssl-1_1-x64.dll") {
		t.Errorf("%s held open: %+v, want kept, in use", redis1, o)
	}
	if _, err := os.Stat(held); err != nil {
		t.Errorf("the file held open: %v", err)
	}
	if exists(b.PkgPath(redis2)) || res.Removed != 1 {
		t.Errorf("%s not removed: %+v", redis2, res)
	}
}

// TestApplyKeepsReplacedDirectory: a release directory replaced between
// the plan and Apply (moved away, another put in its place) is kept: on
// Windows its identity is its volume serial and file index, read on a
// handle (pkgstore.DirID), since os's FileInfo carries neither.
func TestApplyKeepsReplacedDirectory(t *testing.T) {
	b := windowsStore(t)
	s := storetest.Open(t, b.Root)
	inv, err := s.Scan(context.Background(), pkgstore.Options{Target: "x86_64-windows"})
	if err != nil {
		t.Fatal(err)
	}
	if r := inv.Installed(pkgstore.MustParseIdent(redis1)); r == nil || r.Ino == 0 {
		t.Fatalf("%s: %+v, want a file index", redis1, r)
	}
	p, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, nil, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(b.PkgPath(redis1), b.Path("elsewhere")); err != nil {
		t.Fatal(err)
	}
	b.Add(storetest.Release{Ident: redis1, Target: "x86_64-windows", ModTime: old})
	res, err := p.Apply(context.Background(), s, fast)
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := outcome(res, redis1); o.Status != retention.StatusKept || len(o.Reasons) == 0 || o.Reasons[0].Code != retention.CodeChanged {
		t.Errorf("%s replaced since the plan: %+v, want kept, changed", redis1, o)
	}
	if !exists(b.PkgPath(redis1)+"/TARGET") || exists(b.PkgPath(redis2)) {
		t.Errorf("the replacement was removed, or %s was not", redis2)
	}
}

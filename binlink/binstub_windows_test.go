//go:build windows

package binlink_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/binlink"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// Windows binstubs as `hab pkg binlink` lays them out in C:\hab\bin
// (habitat-sh/habitat components/hab/src/command/pkg/binlink.rs:
// binstub_path is DIR\COMMAND.bat, the target C:\hab\pkgs\...\bin\X.exe),
// in a store of x86_64-windows releases, under Wine by .ci/run.

func winStub(id, exe string) string {
	return `C:\hab\pkgs\` + strings.ReplaceAll(id, "/", `\`) + `\bin\` + exe
}

func winScan(t *testing.T, root string) (*pkgstore.Store, *pkgstore.Inventory) {
	t.Helper()
	store := storetest.Open(t, root)
	inv, err := store.Scan(context.Background(), pkgstore.Options{Target: "x86_64-windows"})
	if err != nil {
		t.Fatal(err)
	}
	return store, inv
}

// TestBinstubsWindows: a dangling binstub whose package is gone is
// removed; one whose package has another release installed is left,
// naming `hab pkg binlink --force`; one whose target is there but whose
// PATH names a release gone is no step; a binstub held open for writing
// is kept; and nothing else changes.
func TestBinstubsWindows(t *testing.T) {
	const (
		gone   = "core/gone/1.0.0/20200101000000"
		redis1 = "core/redis/6.2.5/20200101000000"
		redis2 = "core/redis/7.0.0/20210101000000"
		held   = "core/held/1.0.0/20200101000000"
	)
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: redis2, Target: "x86_64-windows", Files: map[string]string{"bin/redis-cli.exe": "MZ"}})
	b.Binstub("hab/bin", "gone", winStub(gone, "gone.exe"), nil).
		Binstub("hab/bin", "redis-cli", winStub(redis1, "redis-cli.exe"), nil).
		Binstub("hab/bin", "redis-ok", winStub(redis2, "redis-cli.exe"), map[string]string{"PATH": `C:\hab\pkgs\` + strings.ReplaceAll(redis1, "/", `\`) + `\bin`}).
		Binstub("hab/bin", "held", winStub(held, "held.exe"), nil)
	store, inv := winScan(t, b.Root)
	plan, err := binlink.NewPlan(store, inv, binlink.Options{})
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]binlink.Step{}
	for _, s := range plan.Steps {
		if _, dup := steps[s.Link]; dup {
			t.Errorf("two steps for %s", s.Link)
		}
		steps[s.Link] = s
	}
	if s := steps["hab/bin/gone.bat"]; s.Action != binlink.ActionRemove {
		t.Errorf("gone.bat: %+v, want removed", s)
	}
	if s := steps["hab/bin/redis-cli.bat"]; s.Action != binlink.ActionLeave || !strings.Contains(s.Reason, "hab pkg binlink --force core/redis redis-cli") {
		t.Errorf("redis-cli.bat: %+v, want left, naming hab pkg binlink --force", s)
	}
	if s, ok := steps["hab/bin/redis-ok.bat"]; ok && s.Action != binlink.ActionLeave {
		t.Errorf("redis-ok.bat, whose target is there: %+v", s)
	}
	if plan.Changes() != 2 {
		t.Fatalf("plan %+v, want 2 removals", plan.Steps)
	}
	p, _ := windows.UTF16PtrFromString(b.Path("hab/bin/held.bat"))
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	lock(t, store)
	res, err := binlink.Apply(context.Background(), store, plan)
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 1 || res.Failed != 0 {
		t.Errorf("result %+v, want 1 removed", res)
	}
	for name, there := range map[string]bool{"gone.bat": false, "redis-cli.bat": true, "redis-ok.bat": true, "held.bat": true} {
		if _, err := os.Stat(b.Path("hab/bin/" + name)); (err == nil) != there {
			t.Errorf("%s: there %v, want %v", name, err == nil, there)
		}
	}
}

// TestBinstubChangedWindows: a binstub rewritten between the plan and
// Apply (pointed at an installed release, as `hab pkg binlink --force`
// does) is left alone, and one swapped while Apply checks it cannot be:
// Apply holds it open sharing only reading.
func TestBinstubChangedWindows(t *testing.T) {
	const gone, redis2 = "core/gone/1.0.0/20200101000000", "core/redis/7.0.0/20210101000000"
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: redis2, Target: "x86_64-windows", Files: map[string]string{"bin/redis-cli.exe": "MZ"}})
	b.Binstub("hab/bin", "a", winStub(gone, "a.exe"), nil).Binstub("hab/bin", "b", winStub(gone, "b.exe"), nil)
	store, inv := winScan(t, b.Root)
	plan, err := binlink.NewPlan(store, inv, binlink.Options{})
	if err != nil || plan.Changes() != 2 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	b.Binstub("hab/bin", "a", winStub(redis2, "redis-cli.exe"), nil) // rewritten since the plan
	var swapErr error
	binlink.SetBeforeChange(plan, func(link string) {
		if link == "hab/bin/b.bat" {
			swapErr = os.WriteFile(b.Path(link), []byte("@echo swapped\r\n"), 0o644)
		}
	})
	lock(t, store)
	res, err := binlink.Apply(context.Background(), store, plan)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kept != 1 || res.Removed != 1 {
		t.Errorf("result %+v, want a kept, b removed", res)
	}
	if _, err := os.Stat(b.Path("hab/bin/a.bat")); err != nil {
		t.Errorf("a.bat, rewritten since the plan: %v", err)
	}
	if swapErr == nil {
		t.Errorf("b.bat was written while Apply held it to remove it")
	}
	if _, err := os.Stat(filepath.Join(b.Root, "hab", "bin", "b.bat")); err == nil {
		t.Errorf("b.bat still there")
	}
}

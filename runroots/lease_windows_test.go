//go:build windows

package runroots_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestHeldOpenKeepsOnlyItsRelease: a file of a release to remove that a
// process holds open without FILE_SHARE_DELETE (a running program, a
// loaded DLL) keeps that release, in use, naming the file within it; the
// other releases to remove are removed. Each release is checked in its
// own directory: until 2026-12-06 the plan's check read the whole store
// for each one (ProbeDir.Path, empty at planning, for ProbeDir.Dir), so
// that one held file anywhere in the store (a service's running program,
// kept anyway) kept every release the plan would remove, each "in use"
// naming that file.
func TestHeldOpenKeepsOnlyItsRelease(t *testing.T) {
	const (
		a1, a2 = "core/a/1/20200101000000", "core/a/2/20210101000000"
		b1, b2 = "core/b/1/20200101000000", "core/b/2/20210101000000"
	)
	b := storetest.New(t)
	for _, id := range []string{a1, a2, b1, b2} {
		b.Add(storetest.Release{Ident: id, Target: "x86_64-windows", ModTime: storetest.OldTime(), Files: map[string]string{"bin/lib.dll": "MZ"}})
	}
	p, err := windows.UTF16PtrFromString(filepath.Join(b.PkgPath(a1), "bin", "lib.dll"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	s := storetest.Open(t, b.Root)
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	plan, err := retention.PlanStore(context.Background(), s, pol, time.Now(), pkgstore.Options{Target: "x86_64-windows"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range plan.Decisions {
		var why []string
		for _, r := range d.Reasons {
			why = append(why, string(r.Code)+": "+r.Text)
		}
		got[d.Release.Ident.String()] = string(d.Action) + " (" + strings.Join(why, "; ") + ")"
	}
	if w := got[a1]; !strings.HasPrefix(w, "keep") || !strings.Contains(w, "in-use: a process holds bin/lib.dll of it open") {
		t.Errorf("%s: %s; want it kept, in use, naming bin/lib.dll", a1, w)
	}
	if w := got[b1]; !strings.HasPrefix(w, "remove") {
		t.Errorf("%s: %s; want it removed: nothing in it is held open", b1, w)
	}
}

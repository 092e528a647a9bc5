package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// leftoverStore is six releases of core/app of which a killed
// `run --keep-latest=3` had hidden the three oldest: each renamed in its
// VERSION directory as retention's hide names it (applier.hide with
// debrisName(dir, "pending", release): DebrisPrefix, "pending-", the
// release, "-" and ten characters of rand.Text). It returns the six
// idents, oldest first.
func leftoverStore(t *testing.T) (*storetest.Builder, []string) {
	t.Helper()
	b := storetest.New(t)
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	for i := 1; i <= 6; i++ {
		id := fmt.Sprintf("core/app/%d.0/2020010%d000000", i, i)
		ids = append(ids, id)
		b.Add(storetest.Release{Ident: id, ModTime: old})
	}
	for _, id := range ids[:3] {
		orig := b.PkgPath(id)
		noErr(t, os.Rename(orig, filepath.Join(filepath.Dir(orig), pkgstore.DebrisPrefix+"pending-"+filepath.Base(orig)+"-ABCDEFGHIJ")))
	}
	return b, ids
}

// TestLeftoversFollowThePolicy: the run after a killed one treats what
// that run hid by its own policy. One that keeps every release puts each
// hidden one back and deletes none; one that keeps one deletes them and
// counts each deletion as a removal in its text and JSON summaries and in
// the history, as any other.
func TestLeftoversFollowThePolicy(t *testing.T) {
	t.Parallel()
	args := func(b *storetest.Builder, more ...string) []string {
		return append([]string{"run", "--fs-root", b.Root, "--min-age=none", "--runtime-roots=false", "--target", storetest.DefaultTarget}, more...)
	}
	t.Run("keeps all", func(t *testing.T) {
		t.Parallel()
		b, ids := leftoverStore(t)
		code, out, errs := hab(t, nil, args(b, "--keep-latest=10")...)
		if code != 0 {
			t.Fatalf("exit %d: %s\n%s", code, out, errs)
		}
		for _, id := range ids {
			if _, err := os.Stat(filepath.Join(b.PkgPath(id), "IDENT")); err != nil {
				t.Errorf("%s, which --keep-latest=10 keeps, is not installed after the run: %v", id, err)
			}
		}
		if m, _ := filepath.Glob(filepath.Join(b.Root, "hab/pkgs/*/*/*", pkgstore.DebrisPrefix+"*")); len(m) > 0 {
			t.Errorf("still hidden: %v", m)
		}
		if !strings.Contains(out, "6 releases: 6 kept, 0 removed") {
			t.Errorf("the summary does not count the six releases kept:\n%s", out)
		}
	})
	t.Run("keeps one", func(t *testing.T) {
		t.Parallel()
		b, ids := leftoverStore(t)
		code, out, errs := hab(t, nil, args(b, "--keep-latest=1", "--json")...)
		if code != 0 {
			t.Fatalf("exit %d: %s\n%s", code, out, errs)
		}
		var rep struct {
			Summary struct{ Releases, Remove, Removed int }
		}
		noErr(t, json.Unmarshal([]byte(out), &rep))
		if s := rep.Summary; s.Releases != 6 || s.Remove != 5 || s.Removed != 5 {
			t.Errorf("JSON summary %+v, want 6 releases and 5 removed (2 installed, 3 hidden by the killed run)", s)
		}
		if _, err := os.Stat(b.PkgPath(ids[5])); err != nil {
			t.Errorf("the newest release is gone: %v", err)
		}
		j, err := history.ForFSRoot(b.Root)
		if err != nil {
			t.Fatal(err)
		}
		recs, _, err := j.Read()
		noErr(t, err)
		removed := map[string]bool{}
		runRemoved := -1
		for _, r := range recs {
			switch {
			case r.Kind == history.KindRun:
				runRemoved = r.Removed
			case r.Outcome == "removed":
				removed[r.Ident] = true
			}
		}
		if runRemoved != 5 {
			t.Errorf("the history's run record counts %d removed, want 5", runRemoved)
		}
		for _, id := range ids[:5] {
			if !removed[id] {
				t.Errorf("the history has no removal of %s (removed: %v)", id, removed)
			}
		}
		code, out, errs = hab(t, nil, "history", "--fs-root", b.Root)
		if code != 0 {
			t.Fatalf("history: exit %d: %s", code, errs)
		}
		for _, id := range ids[:3] {
			if !strings.Contains(out, "removed "+id) {
				t.Errorf("`history` does not list the deleted leftover %s", id)
			}
		}
		if t.Failed() {
			t.Logf("history:\n%s", out)
		}
	})
	t.Run("keeps one, text", func(t *testing.T) {
		t.Parallel()
		b, _ := leftoverStore(t)
		code, out, errs := hab(t, nil, args(b, "--keep-latest=1")...)
		if code != 0 {
			t.Fatalf("exit %d: %s\n%s", code, out, errs)
		}
		if !strings.Contains(out, "6 releases: 1 kept, 5 removed") {
			t.Errorf("the summary does not count the three hidden releases deleted:\n%s", out)
		}
	})
}

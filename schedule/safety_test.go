package schedule_test

import (
	"context"
	"fmt"
	"github.com/hab-gc/hab-gc/schedule"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestMergedJobProtectsEveryFSRoot: two FS roots share one store (B's
// hab/pkgs is a symlink to A's). Only B loads a service. However the jobs
// are grouped, a prune must keep B's loaded service and its dependency.
// A prune is never run through B's symlinked hab/pkgs (hab-gc writes no
// lock or history through a symlink): a job of B alone
// (an explicit spec, never merged) is refused naming the symlink, and a
// merged job runs through A's FS root even when B's definition is the
// older (its owner).
func TestMergedJobProtectsEveryFSRoot(t *testing.T) {
	for _, spec := range []string{"@hourly-random", "17 * * * *"} {
		for _, bOlder := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/b-older=%v", spec, bOlder), func(t *testing.T) { testMergedJobProtects(t, spec, bOlder) })
		}
	}
}

func testMergedJobProtects(t *testing.T, spec string, bOlder bool) {
	testtool.NeedSymlinks(t) // the second FS root's hab/pkgs is a symlink to the first's
	e := newEnv(t)
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	a := hostStore(t)
	a.Add(storetest.Release{Ident: "core/dep/1/1", ModTime: old})
	a.Add(storetest.Release{Ident: "core/dep/2/2", ModTime: old})
	a.Add(storetest.Release{Ident: "core/svc/1/1", Deps: []string{"core/dep/1/1"}, ModTime: old})
	a.Add(storetest.Release{Ident: "core/svc/2/2", Deps: []string{"core/dep/2/2"}, ModTime: old})
	bRoot := testtool.TempDir(t)
	if err := os.MkdirAll(filepath.Join(bRoot, "hab"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(a.Root, "hab", "pkgs"), filepath.Join(bRoot, "hab", "pkgs")); err != nil {
		t.Fatal(err)
	}
	storetest.At(t, bRoot).Spec("svc", "core/svc/1/1")
	aCreated, bCreated := "2026-01-01", "2026-01-02"
	if bOlder {
		aCreated, bCreated = bCreated, aCreated
	}
	e.write("owner", fmt.Sprintf("created = \"%sT00:00:00Z\"\nfs_root = %q\n[prune]\nschedule = %q\nkeep_latest = 1\nmin_age = \"none\"\n", aCreated, a.Root, spec))
	e.write("other", fmt.Sprintf("created = \"%sT00:00:00Z\"\nfs_root = %q\n[prune]\nschedule = %q\nkeep_latest = 1\nmin_age = \"none\"\n", bCreated, bRoot, spec))
	s := e.scheduler()
	s.Run = nil // the real prune
	e.reload(s)
	e.clock.Add(2 * time.Hour)
	for _, o := range s.RunDue(context.Background()) {
		if o.Job.FSRoot == bRoot && len(o.Job.Members) == 1 {
			if o.Status == schedule.Ran || o.Err == nil || !strings.Contains(o.Err.Error(), filepath.Join(bRoot, "hab", "pkgs")+" is a symlink") {
				t.Errorf("%s: a job through B's symlinked hab/pkgs alone: %+v, want it refused naming the symlink", o.Job.Owner, o)
			}
			continue
		}
		if o.Status != schedule.Ran || o.Result.Error != "" {
			t.Errorf("%s: %+v", o.Job.Owner, o)
		}
	}
	for _, id := range []string{"core/svc/1/1", "core/dep/1/1", "core/svc/2/2", "core/dep/2/2"} {
		if _, err := os.Stat(a.PkgPath(id)); err != nil {
			t.Errorf("%s removed: B's loaded service (or what it needs) was not protected", id)
		}
	}
}

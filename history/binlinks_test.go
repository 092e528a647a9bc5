//go:build unix

package history_test

import (
	"context"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/binlink"
	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestLogBinlinks: a binlinks run journals one record per link it
// relinked or removed (the link, its old and new target and release, why)
// and one run record with its counts, under job "binlinks"; a filter by
// ident finds a link by its old or its new release.
func TestLogBinlinks(t *testing.T) {
	ctx := context.Background()
	const old, cur = "core/redis/6.2.5/20200101000000", "core/redis/7.0.0/20210101000000"
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: cur, Files: map[string]string{"PATH": "/hab/pkgs/" + cur + "/bin", "bin/redis-cli": "x"}}).
		Binlink("bin", "redis-cli", "/hab/pkgs/"+old+"/bin/redis-cli").
		Binlink("bin", "tool", "/hab/pkgs/core/tool/1/20190101000000/bin/tool").
		Binlink("bin", "dir", "/hab/pkgs/core/nothing")
	store := storetest.Open(t, b.Root)
	unlock, err := store.Lock(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	inv, err := store.Scan(ctx, pkgstore.Options{BinlinkDirs: []string{"bin"}})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := binlink.NewPlan(store, inv, binlink.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := binlink.Apply(ctx, store, plan)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	run := history.Run{ID: "binlinks-1", Job: history.JobBinlinks, FSRoot: b.Root}
	if err := history.LogBinlinks(ctx, now, run, res, err); err != nil {
		t.Fatal(err)
	}
	j, err := history.ForFSRoot(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	recs, notices, err := j.Read()
	if err != nil || len(notices) > 0 {
		t.Fatal(err, notices)
	}
	if len(recs) != 3 {
		t.Fatalf("records %+v; want two binlink records and the run's", recs)
	}
	byLink := map[string]history.Record{}
	for _, r := range recs[:2] {
		if r.Kind != history.KindBinlink || r.Job != history.JobBinlinks || r.RunID != "binlinks-1" {
			t.Fatalf("record %+v", r)
		}
		byLink[r.Link] = r
	}
	if r := byLink["bin/redis-cli"]; r.Outcome != "relinked" || r.Ident != old || r.NewIdent != cur || r.NewTarget != "/hab/pkgs/"+cur+"/bin/redis-cli" || r.Target != "/hab/pkgs/"+old+"/bin/redis-cli" || r.Why == "" {
		t.Errorf("bin/redis-cli record %+v", r)
	}
	if r := byLink["bin/tool"]; r.Outcome != "removed" || r.Ident != "core/tool/1/20190101000000" || r.NewTarget != "" || r.Why == "" {
		t.Errorf("bin/tool record %+v", r)
	}
	if r := recs[2]; r.Kind != history.KindRun || r.Job != history.JobBinlinks || r.Outcome != history.RunOK || r.Relinked != 1 || r.Removed != 1 || r.Kept != 1 || r.Failed != 0 {
		t.Errorf("run record %+v; want ok, 1 relinked, 1 removed, 1 kept (bin/dir)", r)
	}
	for pattern, want := range map[string]int{"core/redis": 1, "core/redis/7.0.0": 1, "core/redis/6.2.5": 1, "core/tool": 1, "core/other": 0} {
		id := pkgstore.MustParseIdent(pattern)
		if got := len(history.Filter{Ident: &id}.Select(recs)); got != want {
			t.Errorf("filter %s: %d records; want %d", pattern, got, want)
		}
	}
}

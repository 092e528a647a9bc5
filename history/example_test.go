package history_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
	"github.com/hab-gc/hab-gc/retention"
)

// After a run, LogContext writes what it removed and why to the store's journal
// (FS_ROOT/hab/sup/default/hab-gc/history.jsonl), the file `hab-gc history`
// reads; a Journal reads it back.
func ExampleLogContext() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	s, _ := pkgstoretest.New(dir)
	s.Add(pkgstoretest.Release{Ident: "core/redis/7.0.0/20220101000000", Target: pkgstore.DefaultTarget()}).
		Add(pkgstoretest.Release{Ident: "core/redis/7.0.1/20220201000000", Target: pkgstore.DefaultTarget()})
	if err := s.Err(); err != nil {
		panic(err)
	}
	store, err := pkgstore.Open(dir)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	policy := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	now := time.Now()
	plan, err := retention.PlanStore(ctx, store, policy, now)
	if err != nil {
		panic(err)
	}
	res, err := plan.Apply(ctx, store, retention.ApplyOptions{Settle: retention.NoSettle})
	run := history.Run{ID: "run-1", Job: history.JobRun, FSRoot: dir, Policy: policy}
	if err := history.LogContext(ctx, now, run, plan, res, err); err != nil {
		panic(err)
	}

	j, err := history.ForFSRoot(dir)
	if err != nil {
		panic(err)
	}
	recs, _, err := j.Read()
	if err != nil {
		panic(err)
	}
	for _, r := range recs {
		fmt.Println(r.Kind, r.Outcome, r.Ident)
	}
	// Output:
	// release removed core/redis/7.0.0/20220101000000
	// run ok
}

package retention_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"sync"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
	"github.com/hab-gc/hab-gc/retention"
)

var ctx = context.Background()

// exampleStore writes a small store for this machine's target: three
// redis releases (the newest just installed by an update, loaded as a
// service), three nginx ones, and the glibc they need. Every release is 30
// days old but the newest redis. It returns the FS root.
func exampleStore() string {
	dir, _ := os.MkdirTemp("", "example")
	s, err := pkgstoretest.New(dir)
	if err != nil {
		panic(err)
	}
	old := time.Now().Add(-30 * 24 * time.Hour)
	for _, r := range []pkgstoretest.Release{
		{Ident: "core/glibc/2.34/20210101000000", ModTime: old},
		{Ident: "core/glibc/2.35/20220101000000", ModTime: old},
		{Ident: "core/redis/6.2.5/20210101000000", Deps: []string{"core/glibc/2.34/20210101000000"}, ModTime: old},
		{Ident: "core/redis/6.2.6/20210601000000", Deps: []string{"core/glibc/2.35/20220101000000"}, ModTime: old},
		{Ident: "core/redis/7.0.0/20220101000000", Deps: []string{"core/glibc/2.35/20220101000000"}},
		{Ident: "core/nginx/0.9.0/20190101000000", ModTime: old},
		{Ident: "core/nginx/1.0.0/20200101000000", ModTime: old},
		{Ident: "core/nginx/1.1.0/20210101000000", ModTime: old},
	} {
		r.Target = pkgstore.DefaultTarget()
		s.Add(r)
	}
	s.Spec("redis", "core/redis")
	if err := s.Err(); err != nil {
		panic(err)
	}
	return s.Root
}

// openExample opens the example store at fsRoot.
func openExample(fsRoot string) *pkgstore.Store {
	store, err := pkgstore.Open(fsRoot)
	if err != nil {
		panic(err)
	}
	return store
}

// A Supervisor has just updated the redis service. It purges what the
// update superseded, and only that: Only limits removals to core/redis
// and to what only its removed releases needed (here glibc 2.34); the old
// nginx releases stay. MinAge is left at its default (one hour) on a real
// machine, so that an install in progress keeps what it just unpacked;
// the example's store was written just now, so it says NoMinAge. Every
// release a running process uses is kept (Policy.RuntimeRoots, on by
// default).
func Example_purgeAfterUpdate() {
	fsRoot := exampleStore()
	defer os.RemoveAll(fsRoot)

	store, err := pkgstore.Open(fsRoot)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	policy := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	policy.Only = []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")}
	plan, err := retention.PlanStore(ctx, store, policy, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	res, err := plan.Apply(ctx, store) // checked again under the lock
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range res.Outcomes {
		fmt.Println(o.Status, o.Ident)
	}
	// Output:
	// removed core/redis/6.2.5/20210101000000
	// removed core/redis/6.2.6/20210601000000
	// removed core/glibc/2.34/20210101000000
}

// A dry run on a store with a damaged release (a DEPS file naming
// something that is not an ident): PlanStore refuses it with a
// *DamagedError listing each problem. With AllowDamaged, each damaged
// release is kept, and everything it names; the rest is planned as usual.
// Nothing is changed either way.
func Example_damagedStore() {
	fsRoot := exampleStore()
	defer os.RemoveAll(fsRoot)
	os.WriteFile(fsRoot+"/hab/pkgs/core/nginx/1.0.0/20200101000000/DEPS", []byte("core\n"), 0o644)
	store := openExample(fsRoot)
	defer store.Close()

	policy := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	plan, err := retention.PlanStore(ctx, store, policy, time.Now())
	var damaged *retention.DamagedError
	if errors.As(err, &damaged) { // refused: a damaged store...
		for _, p := range damaged.Problems {
			fmt.Println(p.Kind, p.Path)
		}
		policy.AllowDamaged = true // ...unless allowed: it is kept
		plan, err = retention.PlanStore(ctx, store, policy, time.Now())
	}
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range plan.Decisions { // a dry run: nothing was changed
		fmt.Println(d.Action, d.Release.Ident, d.Reasons[0].Code)
	}
	// Output:
	// bad-deps hab/pkgs/core/nginx/1.0.0/20200101000000/DEPS
	// remove core/glibc/2.34/20210101000000 superseded
	// keep core/glibc/2.35/20220101000000 latest
	// remove core/nginx/0.9.0/20190101000000 superseded
	// keep core/nginx/1.0.0/20200101000000 damaged
	// keep core/nginx/1.1.0/20210101000000 latest
	// remove core/redis/6.2.5/20210101000000 superseded
	// remove core/redis/6.2.6/20210601000000 superseded
	// keep core/redis/7.0.0/20220101000000 latest
}

// Two purges at once on one store, as two programs (or a daemon and an
// operator) may start them: each plans, and each Apply takes the store's
// exclusive lock, so they run one after the other, and the second checks
// its plan again under the lock. Every release is removed once, none
// fails. Each Lock opens the lock file anew, so two goroutines sharing a
// Store exclude each other as two processes do.
func Example_concurrentRuns() {
	fsRoot := exampleStore()
	defer os.RemoveAll(fsRoot)
	store := openExample(fsRoot)
	defer store.Close()

	policy := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	now := time.Now()
	results, errs := make([]*retention.Result, 2), make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			plan, err := retention.PlanStore(ctx, store, policy, now)
			if err == nil {
				results[i], err = plan.Apply(ctx, store) // one at a time
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		log.Fatal(err)
	}
	fmt.Println("removed", results[0].Removed+results[1].Removed,
		"failed", results[0].Failed+results[1].Failed)
	// Output:
	// removed 5 failed 0
}

package retention_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
	"github.com/hab-gc/hab-gc/retention"
)

var ctx = context.Background()

// exampleStore writes a small store: three redis releases (the newest
// just installed by an update, loaded as a service), three nginx ones,
// and the glibc they need. Every release is 30 days old but the newest
// redis.
func exampleStore() *pkgstoretest.Store {
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
		s.Add(r)
	}
	s.Spec("redis", "core/redis")
	if err := s.Err(); err != nil {
		panic(err)
	}
	return s
}

// A Supervisor has just updated the redis service. It purges what the
// update superseded, and only that: Only limits removals to core/redis
// and to what only its removed releases needed (here glibc 2.34); the old
// nginx releases stay.
// MinAge is left at its default (one hour), so an install in progress
// keeps what it just unpacked; the ctime of every release here is now,
// so the example says NoMinAge.
func Example_purgeAfterUpdate() {
	s := exampleStore()
	defer os.RemoveAll(s.Root)
	store, err := pkgstore.Open(s.Root)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	policy := retention.Policy{
		KeepLatest: 1,
		Only:       []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")},
		MinAge:     retention.NoMinAge,
	}
	fmt.Println(policy)
	plan, err := retention.PlanStore(ctx, store, policy, time.Now(), pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		panic(err)
	}
	for _, d := range plan.Removals() {
		fmt.Printf("plan: remove %s (%s)\n", d.Release.Ident, d.Reasons[0].Code)
	}
	res, err := plan.Apply(ctx, store, retention.ApplyOptions{Settle: retention.NoSettle})
	if err != nil {
		panic(err)
	}
	for _, o := range res.Outcomes {
		fmt.Println(o.Status, o.Ident)
	}
	// Output:
	// keep-latest=1 min-age=none only=core/redis
	// plan: remove core/glibc/2.34/20210101000000 (freed-by-only)
	// plan: remove core/redis/6.2.5/20210101000000 (superseded)
	// plan: remove core/redis/6.2.6/20210601000000 (superseded)
	// removed core/redis/6.2.5/20210101000000
	// removed core/redis/6.2.6/20210601000000
	// removed core/glibc/2.34/20210101000000
}

// A store-wide dry run: what a policy would remove, why, and how many
// bytes that reclaims. Nothing is changed.
func Example_dryRun() {
	s := exampleStore()
	defer os.RemoveAll(s.Root)
	store, err := pkgstore.Open(s.Root)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	plan, err := retention.PlanStore(ctx, store, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, time.Now(), pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		panic(err)
	}
	for _, d := range plan.Removals() {
		fmt.Printf("%s (%s)\n", d.Release.Ident, d.Reasons[0].Code)
	}
	fmt.Println("bytes reclaimable measured:", plan.ReclaimableBytes() > 0)
	// Output:
	// core/glibc/2.34/20210101000000 (superseded)
	// core/nginx/0.9.0/20190101000000 (superseded)
	// core/nginx/1.0.0/20200101000000 (superseded)
	// core/redis/6.2.5/20210101000000 (superseded)
	// core/redis/6.2.6/20210601000000 (superseded)
	// bytes reclaimable measured: true
}

// A damaged store (a DEPS file naming something that is not an ident) is
// refused with a *DamagedError listing each problem; nothing is planned
// for removal until it is fixed or the policy allows damage.
func Example_damagedStore() {
	s := exampleStore()
	defer os.RemoveAll(s.Root)
	s.File("hab/pkgs/core/nginx/1.1.0/20210101000000/DEPS", "core\n")
	store, err := pkgstore.Open(s.Root)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	policy := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	_, err = retention.PlanStore(ctx, store, policy, time.Now(), pkgstore.Options{Target: "x86_64-linux"})
	var damaged *retention.DamagedError
	if errors.As(err, &damaged) {
		fmt.Println("refused:", errors.Is(err, retention.ErrDamaged))
		for _, p := range damaged.Problems {
			fmt.Println(p.Kind, p.Path)
		}
	}
	policy.AllowDamaged = true // keep each damaged release and all it names
	plan, err := retention.PlanStore(ctx, store, policy, time.Now(), pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		panic(err)
	}
	d, _ := plan.Decision(pkgstore.MustParseIdent("core/nginx/1.1.0/20210101000000"))
	fmt.Println(d.Action, d.Reasons[len(d.Reasons)-1].Code)
	// Output:
	// refused: true
	// bad-deps hab/pkgs/core/nginx/1.1.0/20210101000000/DEPS
	// keep damaged
}

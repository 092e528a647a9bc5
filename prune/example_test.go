package prune_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
	"github.com/hab-gc/hab-gc/prune"
	"github.com/hab-gc/hab-gc/retention"
)

// Run is `hab-gc run --keep-latest 1 --cache`: the store keeps
// the newest release of core/redis, and the artifact cache loses the
// archive of a removed release, the newest of those staying for an offline
// rollback (artifactcache.DefaultKeepLatest) and the kept release's too.
func ExampleRun() {
	fsRoot, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(fsRoot)
	ids := []string{"core/redis/6.2.4/20210901000000", "core/redis/6.2.5/20211001000000", "core/redis/6.2.6/20220101000000"}
	s, _ := pkgstoretest.New(fsRoot)
	cache := filepath.Join(fsRoot, artifactcache.Dir)
	os.MkdirAll(cache, 0o755)
	for _, id := range ids { // installed, with the archives they were installed from
		s.Add(pkgstoretest.Release{Ident: id})
		os.WriteFile(filepath.Join(cache, pkgstore.MustParseIdent(id).ArchiveName("x86_64-linux")), storetest.Hart(id), 0o644)
	}
	ctx := context.Background()
	store, err := pkgstore.Open(fsRoot)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	// All of it was written a moment ago: no minimum age, and archives
	// count as downloaded long ago (their install window has passed). On
	// a machine, leave both out (an hour each).
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	scan := pkgstore.Options{InstallWindow: time.Nanosecond}

	// OnPlan sees the plan before anything is removed (DryRun: stop there).
	show := func(o *prune.Outcome) {
		for _, d := range o.Plan.Removals() {
			fmt.Println("plan removes", d.Release.Ident)
		}
	}
	res, err := prune.Run(ctx, store, prune.Options{Policy: pol, Scan: scan, Cache: &artifactcache.Options{}, OnPlan: show})
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range res.CacheDone {
		fmt.Println(o.Status, o.File)
	}
	fmt.Println("releases removed:", res.Result.Removed)
	// Output:
	// plan removes core/redis/6.2.4/20210901000000
	// plan removes core/redis/6.2.5/20211001000000
	// removed core-redis-6.2.4-20210901000000-x86_64-linux.hart
	// releases removed: 2
}

// RefuseUnmatched is the rule `hab-gc run` applies before a real run: a
// pin given on the command line that matches nothing installed is
// probably a typo, and refuses the run; the same pin from a config file
// only warns.
func ExampleRefuseUnmatched() {
	fsRoot, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(fsRoot)
	s, _ := pkgstoretest.New(fsRoot)
	s.Add(pkgstoretest.Release{Ident: "core/redis/6.2.6/20220101000000"})
	store, err := pkgstore.Open(fsRoot)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	typo, _ := retention.ParsePin("core/reddis")
	typo.Source = "flag --exclude"
	shared, _ := retention.ParsePin("core/postgresql")
	shared.Source = "/etc/hab-gc.toml"
	pol := retention.Policy{KeepLatest: 1, Excludes: []retention.Exclude{typo, shared}}
	plan, err := retention.PlanStore(context.Background(), store, pol, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	fromFlags := func(key, source string) bool { return key == prune.SettingExclude && source == "flag --exclude" }
	err = prune.RefuseUnmatched(fromFlags)(plan)
	fmt.Println(errors.Is(err, prune.ErrUnmatched), strings.Contains(err.Error(), "core/reddis"), strings.Contains(err.Error(), "core/postgresql"))
	fmt.Println("warnings:", len(plan.Warnings))
	// Output:
	// true true false
	// warnings: 2
}

//go:build unix

package binlink_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/hab-gc/hab-gc/binlink"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
)

// `hab pkg uninstall core/redis/6.2.5/20200101000000` left /bin/redis-cli
// pointing into it; 7.0.0 is installed. The plan (the dry run) relinks it,
// and Apply does so under the store's lock.
func Example() {
	root, _ := os.MkdirTemp("", "binlink-example")
	defer os.RemoveAll(root)
	s, _ := pkgstoretest.New(root)
	s.Add(pkgstoretest.Release{Ident: "core/redis/7.0.0/20210101000000", Files: map[string]string{
		"PATH":          "/hab/pkgs/core/redis/7.0.0/20210101000000/bin\n",
		"bin/redis-cli": "#!/bin/sh\n",
	}})
	s.Binlink("bin", "redis-cli", "/hab/pkgs/core/redis/6.2.5/20200101000000/bin/redis-cli")
	s.Binlink("bin", "old-tool", "/hab/pkgs/core/tool/1.0/20190101000000/bin/old-tool")
	if err := s.Err(); err != nil {
		panic(err)
	}

	ctx := context.Background()
	store, err := pkgstore.Open(root)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	unlock, err := store.Lock(ctx, 10*time.Second) // Apply checks it
	if err != nil {
		log.Fatal(err)
	}
	defer unlock()
	inv, err := store.Scan(ctx, pkgstore.Options{}) // with binlinks
	if err != nil {
		log.Fatal(err)
	}
	plan, err := binlink.NewPlan(store, inv, binlink.Options{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := binlink.Apply(ctx, store, plan)
	if err != nil {
		log.Fatal(err)
	}
	for _, st := range plan.Steps {
		fmt.Printf("plan: %s %s (%s)\n", st.Action, st.Link, st.Reason)
	}
	for _, o := range res.Outcomes {
		if o.Status == binlink.StatusRelinked {
			fmt.Printf("%s %s -> %s\n", o.Status, o.Link, o.NewTarget)
			continue
		}
		fmt.Printf("%s %s\n", o.Status, o.Link)
	}
	// Output:
	// plan: remove bin/old-tool (no release of core/tool is installed)
	// plan: relink bin/redis-cli (core/redis/7.0.0/20210101000000 is the newest installed release of core/redis with redis-cli)
	// removed bin/old-tool
	// relinked bin/redis-cli -> /hab/pkgs/core/redis/7.0.0/20210101000000/bin/redis-cli
}

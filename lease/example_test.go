package lease_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/hab-gc/hab-gc/lease"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
	"github.com/hab-gc/hab-gc/retention"
)

// An installer about to install core/redis/7.0.0, whose TDEPS name
// core/openssl/1.1.1k/20210101000000, leases it before it checks that it is
// installed, and releases the lease once redis is in place: meanwhile
// no hab-gc (CLI, daemon or library) removes it. A lease also ends with
// the process that holds it.
func Example() {
	fsRoot, _ := os.MkdirTemp("", "lease")
	defer os.RemoveAll(fsRoot)
	s, _ := pkgstoretest.New(fsRoot)
	s.Add(pkgstoretest.Release{Ident: "core/openssl/1.1.1k/20210101000000", Target: pkgstore.DefaultTarget()})
	s.Add(pkgstoretest.Release{Ident: "core/openssl/3.0.0/20220101000000", Target: pkgstore.DefaultTarget()})
	if s.Err() != nil {
		panic(s.Err())
	}
	// decision is what a dry run with keep_latest 1 decides for id.
	decision := func(id pkgstore.Ident) string {
		store, err := pkgstore.Open(fsRoot)
		if err != nil {
			panic(err)
		}
		defer store.Close()
		p, err := retention.PlanStore(context.Background(), store, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, time.Now())
		if err != nil {
			panic(err)
		}
		d, _ := p.Decision(id)
		return fmt.Sprint(d.Action, " ", d.Reasons[0].Code)
	}

	// from the new release's TDEPS:
	const ssl = "core/openssl/1.1.1k/20210101000000"
	openssl := pkgstore.MustParseIdent(ssl)
	l, err := lease.Acquire(fsRoot, "install of core/redis/7", openssl)
	if err != nil {
		log.Fatal(err)
	}
	// ... check that openssl is installed, install core/redis/7.0.0 ...
	fmt.Println("during the install:", decision(openssl))
	if err := l.Release(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("after it:", decision(openssl))
	// Output:
	// during the install: keep leased
	// after it: remove superseded
}

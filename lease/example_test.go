package lease_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hab-gc/hab-gc/lease"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
	"github.com/hab-gc/hab-gc/retention"
)

// An installer about to install core/redis/7.0.0, which needs
// core/openssl/1.1.1k, leases openssl before it checks that it is
// installed, and releases the lease once redis is in place: meanwhile
// no hab-gc (CLI, daemon or library) removes it.
func Example() {
	dir, _ := os.MkdirTemp("", "lease")
	defer os.RemoveAll(dir)
	s, _ := pkgstoretest.New(dir)
	s.Pkg("core/openssl/1.1.1k/20210101000000").Pkg("core/openssl/3.0.0/20220101000000")
	if s.Err() != nil {
		panic(s.Err())
	}
	plan := func() retention.Decision {
		store, err := pkgstore.Open(dir)
		if err != nil {
			panic(err)
		}
		defer store.Close()
		p, err := retention.PlanStore(context.Background(), store, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, time.Now(), pkgstore.Options{Target: "x86_64-linux"})
		if err != nil {
			panic(err)
		}
		d, _ := p.Decision(pkgstore.MustParseIdent("core/openssl/1.1.1k/20210101000000"))
		return d
	}

	l, err := lease.Acquire(dir, "install of core/redis/7.0.0", pkgstore.MustParseIdent("core/openssl/1.1.1k"))
	if err != nil {
		panic(err)
	}
	d := plan()
	fmt.Println("during the install:", d.Action, d.Reasons[0].Code)
	// ... install core/redis/7.0.0 ...
	l.Release()
	d = plan()
	fmt.Println("after it:", d.Action)
	// Output:
	// during the install: keep leased
	// after it: remove
}

package pkgstore_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
)

// Scan reads a store as Habitat lists it: each installed release with its
// dependencies, the loaded services, and every problem met on the way.
func ExampleScan() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	s, _ := pkgstoretest.New(dir)
	s.Add(pkgstoretest.Release{Ident: "core/glibc/2.35/20220101000000"}).
		Add(pkgstoretest.Release{Ident: "core/redis/7.0.0/20220201000000", Deps: []string{"core/glibc/2.35/20220101000000"}}).
		Add(pkgstoretest.Release{Ident: "core/redis/7.0.1/20220301000000", Deps: []string{"core/glibc/2.35/20220101000000"}}).
		Spec("redis", "core/redis")
	if err := s.Err(); err != nil {
		panic(err)
	}

	inv, err := pkgstore.Scan(context.Background(), dir, pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		panic(err)
	}
	for _, r := range inv.Releases {
		fmt.Println(r.Ident, "needs", len(r.Deps))
	}
	svc := inv.Services[0]
	fmt.Println("service", svc.Name, "runs", inv.Latest(svc.Ident).Ident)
	fmt.Println("problems:", len(inv.Problems))
	// Output:
	// core/glibc/2.35/20220101000000 needs 0
	// core/redis/7.0.0/20220201000000 needs 1
	// core/redis/7.0.1/20220301000000 needs 1
	// service redis runs core/redis/7.0.1/20220301000000
	// problems: 0
}

// Idents are compared as Habitat orders releases: by version, then by
// release timestamp.
func ExampleCompare() {
	a := pkgstore.MustParseIdent("core/openssl/1.0.2k/20200101000000")
	b := pkgstore.MustParseIdent("core/openssl/1.1.1k/20190101000000")
	fmt.Println(pkgstore.Compare(a, b) < 0)
	// Output: true
}

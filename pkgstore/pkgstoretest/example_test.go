package pkgstoretest_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
)

// An integrator's test builds a store without a testing.TB and scans it.
func Example() {
	dir, _ := os.MkdirTemp("", "store")
	defer os.RemoveAll(dir)
	s, err := pkgstoretest.New(dir)
	if err != nil {
		panic(err)
	}
	s.Pkg("core/glibc/2.35/20220101000000").
		Pkg("core/redis/7.0.0/20220201000000", "core/glibc/2.35/20220101000000").
		Spec("redis", "core/redis")
	if err := s.Err(); err != nil {
		panic(err)
	}
	inv, err := pkgstore.Scan(context.Background(), s.Root, pkgstore.Options{Target: pkgstoretest.DefaultTarget})
	if err != nil {
		panic(err)
	}
	for _, r := range inv.Releases {
		fmt.Println(r.Ident)
	}
	fmt.Println("services:", len(inv.Services), "problems:", len(inv.Problems))
	// Output:
	// core/glibc/2.35/20220101000000
	// core/redis/7.0.0/20220201000000
	// services: 1 problems: 0
}

// The first error stops the chain, and Err reports it.
func ExampleStore_Err() {
	dir, _ := os.MkdirTemp("", "store")
	defer os.RemoveAll(dir)
	s, _ := pkgstoretest.New(dir)
	s.Pkg("core/redis").File("../outside", "x")
	fmt.Println(s.Err())
	// Output:
	// pkgstoretest: "core/redis" is not origin/name/version/release
}

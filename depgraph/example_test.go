package depgraph_test

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
)

// A Graph answers what a release needs and what needs it, transitively.
func ExampleGraph() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	s, _ := pkgstoretest.New(dir)
	s.Add(pkgstoretest.Release{Ident: "core/glibc/2.35/20220101000000"}).
		Add(pkgstoretest.Release{Ident: "core/openssl/3.0.0/20220101000000", Deps: []string{"core/glibc/2.35/20220101000000"}}).
		Add(pkgstoretest.Release{Ident: "core/nginx/1.21.0/20220201000000", Deps: []string{"core/openssl/3.0.0/20220101000000"}})
	if err := s.Err(); err != nil {
		panic(err)
	}
	inv, err := pkgstore.Scan(context.Background(), dir, pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		panic(err)
	}
	g := depgraph.New(inv)
	nginx := inv.Installed(pkgstore.MustParseIdent("core/nginx/1.21.0/20220201000000")).Ref
	glibc := inv.Installed(pkgstore.MustParseIdent("core/glibc/2.35/20220101000000")).Ref
	var needs []string
	for _, r := range g.Closure(nginx) {
		needs = append(needs, inv.Ident(r).String())
	}
	sort.Strings(needs) // a closure is a set
	fmt.Println("nginx needs", needs)
	var users []string
	for _, r := range g.ReverseClosure(glibc) {
		users = append(users, inv.Ident(r).String())
	}
	sort.Strings(users)
	fmt.Println("glibc is needed by", users)
	// Output:
	// nginx needs [core/glibc/2.35/20220101000000 core/openssl/3.0.0/20220101000000]
	// glibc is needed by [core/nginx/1.21.0/20220201000000 core/openssl/3.0.0/20220101000000]
}

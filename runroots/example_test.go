//go:build linux

package runroots_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
	"github.com/hab-gc/hab-gc/runroots"
)

// Scan reads /proc and says which releases running processes use. Here
// this very process holds a file of a release open.
func ExampleScan() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	s, _ := pkgstoretest.New(dir)
	s.Add(pkgstoretest.Release{Ident: "core/tool/1.0.0/20220101000000", Files: map[string]string{"share/data": "data\n"}})
	if err := s.Err(); err != nil {
		panic(err)
	}
	f, err := os.Open(filepath.Join(dir, "hab/pkgs/core/tool/1.0.0/20220101000000/share/data"))
	if err != nil {
		panic(err)
	}
	defer f.Close()

	inv, err := pkgstore.Scan(context.Background(), dir, pkgstore.Options{})
	if err != nil {
		panic(err)
	}
	res, err := runroots.Scan(context.Background(), runroots.DefaultProcRoot, inv)
	if err != nil {
		panic(err)
	}
	for _, u := range res.Uses {
		if u.PID == os.Getpid() {
			fmt.Println(u.Ident, u.Kind, u.File)
		}
	}
	// Output: core/tool/1.0.0/20220101000000 fd share/data
}

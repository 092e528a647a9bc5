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

// A Mode reads /proc and makes each release a running process uses a
// root. Here this very process holds a file of a release open.
func ExampleMode_FindRoots() {
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
	found, err := runroots.ModeOn.FindRoots(context.Background(), inv)
	if err != nil {
		panic(err)
	}
	for _, r := range found.Roots {
		fmt.Println(r.Ident, r.Code)
	}
	// Output: core/tool/1.0.0/20220101000000 in-use
}

package pkgstore_test

import (
	"context"
	"errors"
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

// ScanSettings are a scan's options as a user writes them: without a
// target, the one Habitat runs as there (the TARGET of its own release);
// HAB_BINLINK_DIR is read besides the default binlink directories.
func ExampleScanSettings_Options() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	s, _ := pkgstoretest.New(dir)
	s.Add(pkgstoretest.Release{Ident: "chef/hab/1.6.0/20220101000000", Target: "aarch64-linux"})
	if err := s.Err(); err != nil {
		panic(err)
	}

	window := "30m"
	opts, err := pkgstore.ScanSettings{BinlinkDir: "opt/bin", InstallWindow: &window}.Options(dir)
	if err != nil {
		panic(err)
	}
	fmt.Println(opts.Target, opts.BinlinkDirs, opts.InstallWindow)
	_, err = pkgstore.ScanSettings{Target: "x86_64-plan9"}.Options(dir)
	fmt.Println(errors.Is(err, pkgstore.ErrUnknownTarget))
	// Output:
	// aarch64-linux [bin usr/local/bin hab/bin opt/bin] 30m0s
	// true
}

//go:build unix

package pkgstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

func TestScanHealthyStore(t *testing.T) {
	b := storetest.New(t)
	b.Pkg("core/glibc/2.35/20220101000000").
		Pkg("core/openssl/1.0.2k/20220201000000", "core/glibc/2.35/20220101000000").
		Pkg("core/openssl/1.0.2/20220101000000", "core/glibc/2.35/20220101000000").
		Pkg("core/redis/6.2.6/20220301000000", "core/openssl/1.0.2/20220101000000").
		Pkg("core/redis/6.2.10/20220401000000", "core/openssl/1.0.2/20220101000000").
		Spec("redis", "core/redis").
		Binlink("bin", "openssl", "/hab/pkgs/core/openssl/1.0.2k/20220201000000/MANIFEST")
	inv := scan(t, b.Root)

	want := []string{
		"core/glibc/2.35/20220101000000",
		"core/openssl/1.0.2k/20220201000000", // letter suffix sorts like a pre-release
		"core/openssl/1.0.2/20220101000000",
		"core/redis/6.2.6/20220301000000",
		"core/redis/6.2.10/20220401000000",
	}
	if got := idents(inv.Releases); !slices.Equal(got, want) {
		t.Fatalf("releases:\n got %v\nwant %v", got, want)
	}
	if len(inv.Problems) != 0 {
		t.Fatalf("unexpected problems: %v", inv.Problems)
	}
	redis := inv.Installed(pkgstore.MustParseIdent("core/redis/6.2.10/20220401000000"))
	if redis == nil {
		t.Fatal("redis not installed")
	}
	var tdeps []string
	for _, r := range redis.TDeps {
		tdeps = append(tdeps, inv.Ident(r).String())
	}
	if !slices.Equal(tdeps, []string{"core/openssl/1.0.2/20220101000000", "core/glibc/2.35/20220101000000"}) {
		t.Fatalf("TDEPS = %v", tdeps)
	}
	if len(redis.Deps) != 1 || redis.Size <= 0 || redis.ModTime.IsZero() || redis.Ino == 0 {
		t.Fatalf("release fields not filled: %+v", redis)
	}
	if len(inv.Services) != 1 || !inv.Services[0].Installed || inv.Services[0].Resolved.String() != "core/redis/6.2.10/20220401000000" {
		t.Fatalf("services = %+v", inv.Services)
	}
	if len(inv.Binlinks) != 1 || inv.Binlinks[0].Dangling || inv.Binlinks[0].Release.String() != "core/openssl/1.0.2k/20220201000000" {
		t.Fatalf("binlinks = %+v", inv.Binlinks)
	}
	if rep := inv.Verify(); len(rep.Problems) != 0 {
		t.Fatalf("verify of a healthy store: %v", rep.Problems)
	}
}

func TestScanWithoutSizes(t *testing.T) {
	b := storetest.New(t).Pkg("core/a/1/1")
	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	if inv.Releases[0].Size != -1 {
		t.Fatalf("size computed without being asked: %d", inv.Releases[0].Size)
	}
}

func TestOpenUnusableRoot(t *testing.T) {
	dir := testtool.TempDir(t)
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for name, root := range map[string]string{
		"missing":     filepath.Join(dir, "nope"),
		"not a dir":   file,
		"no hab/pkgs": dir,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := pkgstore.Open(root)
			if !errors.Is(err, pkgstore.ErrNoStore) {
				t.Fatalf("Open(%s) = %v, want ErrNoStore", root, err)
			}
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root reads everything")
		}
		b := storetest.New(t).Chmod("hab/pkgs", 0)
		t.Cleanup(func() { os.Chmod(b.Path("hab/pkgs"), 0o755) })
		if _, err := pkgstore.Open(b.Root); !errors.Is(err, pkgstore.ErrNoStore) {
			t.Fatalf("got %v", err)
		}
	})
}

// TestScanDamagedStore builds one store with every kind of damage and checks
// that the scan completes and reports each of them.
func TestScanDamagedStore(t *testing.T) {
	outside := testtool.TempDir(t)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644)
	storetest.At(t, outside).Pkg("evil/pkg/1/1")

	b := storetest.New(t)
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	b.Pkg("core/ok/1.0/20200101000000").
		Add(storetest.Release{Ident: "core/notarget/1.0/20200101000000", Target: "-"}).
		Add(storetest.Release{Ident: "core/badtarget/1.0/20200101000000", Target: "sparc-plan9"}).
		Add(storetest.Release{Ident: "core/foreign/1.0/20200101000000", Target: "aarch64-linux"}).
		Add(storetest.Release{Ident: "core/identdiff/1.0/20200101000000", IdentFile: "core/other/1.0/20200101000000\n"}).
		Add(storetest.Release{Ident: "core/noident/1.0/20200101000000", IdentFile: "-"}).
		Add(storetest.Release{Ident: "core/baddeps/1.0/20200101000000", Deps: []string{"core/ok/1.0/20200101000000", "core/ok/1.0", "../../../etc/passwd/x", "core/o k/1/2"}, TDeps: []string{"core/ok/1.0/20200101000000"}}).
		Add(storetest.Release{Ident: "core/missingdep/1.0/20200101000000", Deps: []string{"core/gone/1.0/20190101000000"}}).
		Add(storetest.Release{Ident: "core/notintdeps/1.0/20200101000000", Deps: []string{"core/ok/1.0/20200101000000"}, TDeps: []string{}}).
		Mkdir("hab/pkgs/core/ok/1.0/.hab-pkg-install-20210101000000abcdef").
		Chtimes("hab/pkgs/core/ok/1.0/.hab-pkg-install-20210101000000abcdef", now.Add(-48*time.Hour)).
		File("hab/pkgs/core/ok/stray-file", "x").
		File("hab/pkgs/README", "x").
		Symlink(outside+"/hab/pkgs/evil/pkg/1/1", "hab/pkgs/core/ok/1.0/20210101000000").
		Symlink(outside+"/hab/pkgs/evil", "hab/pkgs/evil").
		Mkdir("hab/pkgs/core/bad\xffname/1.0/20200101000000").
		Mkdir("hab/pkgs/core/has space/1.0/1").
		File("hab/sup/default/specs/broken.spec", "ident = \n").
		File("hab/sup/default/specs/noident.spec", "group = \"x\"\n").
		File("hab/sup/default/specs/misnamed.spec", "ident = \"core/ok\"\n").
		Spec("gone", "core/gone").
		Binlink("bin", "dangling", "/hab/pkgs/core/gone/1.0/20190101000000/bin/x").
		Binlink("bin", "notstore", "/usr/lib/x")
	b.Pkg("core/dirdeps/1.0/20200101000000").Mkdir("hab/pkgs/core/dirdeps/1.0/20200101000000/TDEPS")
	b.Pkg("core/fifo/1.0/20200101000000")
	if err := syscall.Mkfifo(b.Path("hab/pkgs/core/fifo/1.0/20200101000000/DEPS"), 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		b.Pkg("core/locked/1.0/20200101000000").Chmod("hab/pkgs/core/locked/1.0/20200101000000/DEPS", 0)
		b.File("hab/pkgs/core/locked/1.0/20200101000000/DEPS", "")
	}

	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	rep := inv.Verify()
	type want struct {
		path     string
		kind     pkgstore.ProblemKind
		blocking bool
		says     string
	}
	wants := []want{
		{"hab/pkgs/core/notarget/1.0/20200101000000/TARGET", pkgstore.ProblemTarget, false, "missing"},
		{"hab/pkgs/core/badtarget/1.0/20200101000000/TARGET", pkgstore.ProblemTarget, false, "sparc-plan9"},
		{"hab/pkgs/core/foreign/1.0/20200101000000/TARGET", pkgstore.ProblemForeignTarget, false, "aarch64-linux"},
		{"hab/pkgs/core/identdiff/1.0/20200101000000/IDENT", pkgstore.ProblemIdent, false, "core/other"},
		{"hab/pkgs/core/noident/1.0/20200101000000/IDENT", pkgstore.ProblemIdent, false, "missing"},
		{"hab/pkgs/core/baddeps/1.0/20200101000000/DEPS", pkgstore.ProblemDeps, true, "not fully qualified"},
		{"hab/pkgs/core/baddeps/1.0/20200101000000/DEPS", pkgstore.ProblemDeps, true, `".."`},
		{"hab/pkgs/core/baddeps/1.0/20200101000000/DEPS", pkgstore.ProblemDeps, true, "whitespace"},
		{"hab/pkgs/core/missingdep/1.0/20200101000000", pkgstore.ProblemDepMissing, false, "core/gone/1.0/20190101000000"},
		{"hab/pkgs/core/notintdeps/1.0/20200101000000/TDEPS", pkgstore.ProblemDepsNotInTDeps, false, "core/ok/1.0/20200101000000"},
		{"hab/pkgs/core/ok/1.0/.hab-pkg-install-20210101000000abcdef", pkgstore.ProblemInstallLeftover, false, "48h0m0s old"},
		{"hab/pkgs/core/ok/stray-file", pkgstore.ProblemNotDir, false, "file where a version directory"},
		{"hab/pkgs/README", pkgstore.ProblemNotDir, false, "where an origin directory"},
		{"hab/pkgs/core/ok/1.0/20210101000000", pkgstore.ProblemSymlink, true, "release directory is a symlink"},
		{"hab/pkgs/evil", pkgstore.ProblemSymlink, true, "origin directory is a symlink"},
		{`hab/pkgs/core/bad\xffname`, pkgstore.ProblemBadName, false, "UTF-8"},
		{"hab/pkgs/core/has space", pkgstore.ProblemBadName, false, "whitespace"},
		{"hab/sup/default/specs/broken.spec", pkgstore.ProblemSpec, true, "line 1"},
		{"hab/sup/default/specs/noident.spec", pkgstore.ProblemSpec, true, `no "ident"`},
		{"hab/sup/default/specs/misnamed.spec", pkgstore.ProblemSpecName, false, "misnamed"},
		{"hab/sup/default/specs/gone.spec", pkgstore.ProblemSpecUnmatched, false, "core/gone"},
		{"bin/dangling", pkgstore.ProblemDanglingBinlink, false, "core/gone"},
	}
	wants = append(wants,
		want{"hab/pkgs/core/dirdeps/1.0/20200101000000/TDEPS", pkgstore.ProblemDeps, true, "not a regular file"},
		want{"hab/pkgs/core/fifo/1.0/20200101000000/DEPS", pkgstore.ProblemDeps, true, "not a regular file"})
	if os.Geteuid() != 0 {
		wants = append(wants, want{"hab/pkgs/core/locked/1.0/20200101000000/DEPS", pkgstore.ProblemDeps, true, "permission denied"})
	}
	for _, w := range wants {
		found := false
		for _, p := range rep.Problems {
			if p.Path == w.path && p.Kind == w.kind && p.Blocking == w.blocking && strings.Contains(p.Message, w.says) {
				found = true
			}
		}
		if !found {
			t.Errorf("missing problem %s %s (blocking=%v) saying %q", w.path, w.kind, w.blocking, w.says)
		}
	}
	if t.Failed() {
		for _, p := range rep.Problems {
			t.Logf("got: %s (blocking=%v)", p, p.Blocking)
		}
	}
	// Only directories with a matching TARGET count; nothing behind a
	// symlink was entered.
	wantRels := []string{
		"core/baddeps/1.0/20200101000000",
		"core/dirdeps/1.0/20200101000000",
		"core/fifo/1.0/20200101000000",
		"core/identdiff/1.0/20200101000000",
		"core/missingdep/1.0/20200101000000",
		"core/noident/1.0/20200101000000",
		"core/notintdeps/1.0/20200101000000",
		"core/ok/1.0/20200101000000",
	}
	got := idents(inv.Releases)
	got = slices.DeleteFunc(got, func(s string) bool { return strings.HasPrefix(s, "core/locked/") })
	if !slices.Equal(got, wantRels) {
		t.Fatalf("releases = %v, want %v", got, wantRels)
	}
	if r := inv.Installed(pkgstore.MustParseIdent("core/baddeps/1.0/20200101000000")); !r.Damaged || len(r.Deps) != 1 {
		t.Fatalf("baddeps should be damaged with its one valid line kept: %+v", r)
	}
	if len(inv.Blocking()) == 0 {
		t.Fatal("a damaged store must have blocking problems")
	}
}

func TestServiceResolution(t *testing.T) {
	b := storetest.New(t).
		Pkg("core/redis/4.0.14/20200101000000").
		Pkg("core/redis/4.0.14/20210101000000").
		Pkg("core/redis/5.0.1/20190101000000").
		Pkg("core/app/master/20200101000000").
		Pkg("core/app/1.0/20190101000000").
		Spec("redis", "core/redis/4.0.14").
		Spec("app", "core/app")
	inv := scan(t, b.Root)
	byName := map[string]pkgstore.Service{}
	for _, s := range inv.Services {
		byName[s.Name] = s
	}
	if r := byName["redis"].Resolved.String(); r != "core/redis/4.0.14/20210101000000" {
		t.Errorf("redis resolves to %s", r)
	}
	app := byName["app"]
	// Habitat falls back to comparing "1.0" and "master" as strings: master
	// is always picked.
	if app.Resolved.String() != "core/app/master/20200101000000" || len(app.Ambiguous) != 0 {
		t.Errorf("app: resolved %s, ambiguous %v", app.Resolved, app.Ambiguous)
	}
}

func TestBinlinkWithFSRootPrefix(t *testing.T) {
	b := storetest.New(t).Pkg("core/busybox/1.0/20200101000000")
	b.Binlink("hab/bin", "ls", b.PkgPath("core/busybox/1.0/20200101000000")+"/MANIFEST")
	b.Binlink("usr/local/bin", "rel", "../../../hab/pkgs/core/busybox/1.0/20200101000000/MANIFEST")
	inv := scan(t, b.Root)
	if len(inv.Binlinks) != 2 {
		t.Fatalf("binlinks = %+v", inv.Binlinks)
	}
	for _, bl := range inv.Binlinks {
		if bl.Dangling || bl.Release.String() != "core/busybox/1.0/20200101000000" {
			t.Errorf("binlink %+v", bl)
		}
	}
}

func TestScanCancelled(t *testing.T) {
	b := storetest.New(t).Pkg("core/a/1/1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := pkgstore.Scan(ctx, b.Root, pkgstore.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

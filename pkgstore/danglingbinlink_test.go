package pkgstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestDanglingBinlinkReasons: `hab pkg uninstall` leaves the binlinks of
// the release it removes (habitat-sh/habitat issue 6426). Verify (hab-gc
// check) reports each binlink that leads to nothing, saying why: its
// release is not installed (another of its package is), no release of
// its package is, or the release is installed but the file the link
// names is not there (missing, or a symlink to nothing inside the
// release, which Habitat's find_command_in_pkg, components/core/src/fs.rs,
// would not take: candidate.is_file()). Links that lead somewhere are not
// reported.
func TestDanglingBinlinkReasons(t *testing.T) {
	testtool.NeedSymlinks(t)
	const r1, r2 = "core/redis/6.2.5/20200101000000", "core/redis/7.0.0/20210101000000"
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: r2, Files: map[string]string{"bin/redis-server": "#!/bin/sh\n", "bin/redis-real": "x"}})
	b.Symlink("redis-real", "hab/pkgs/"+r2+"/bin/redis-cli").
		Symlink("nothing-here", "hab/pkgs/"+r2+"/bin/redis-check").
		Binlink("bin", "redis-server", "/hab/pkgs/"+r1+"/bin/redis-server").       // release uninstalled
		Binlink("bin", "gone", "/hab/pkgs/core/gone/1.0/20190101000000/bin/gone"). // whole package gone
		Binlink("bin", "redis-benchmark", "/hab/pkgs/"+r2+"/bin/redis-benchmark"). // file gone
		Binlink("bin", "redis-check", "/hab/pkgs/"+r2+"/bin/redis-check").         // a symlink to nothing
		Binlink("bin", "redis-cli", "/hab/pkgs/"+r2+"/bin/redis-cli").             // fine, through a link inside the release
		Binlink("bin", "ok", "/hab/pkgs/"+r2+"/bin/redis-server").                 // fine
		Mkdir("hab/pkgs/core/half/1.0/20200101000000/bin").                        // a directory left, no release
		File("hab/pkgs/core/half/1.0/20200101000000/bin/half", "x").
		Binlink("bin", "half", "/hab/pkgs/core/half/1.0/20200101000000/bin/half")
	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{BinlinkDirs: []string{"bin"}})
	if err != nil {
		t.Fatal(err)
	}
	rep := inv.Verify()
	got := map[string]string{}
	for _, p := range rep.Problems {
		if p.Kind == pkgstore.ProblemDanglingBinlink {
			got[p.Path] = p.Message
		}
	}
	want := map[string][]string{
		"bin/redis-server":    {r1, "is not installed", "newest installed release of core/redis is " + r2},
		"bin/gone":            {"core/gone/1.0/20190101000000", "is not installed", "no release of core/gone is installed"},
		"bin/redis-benchmark": {r2, "is installed", "has no bin/redis-benchmark"},
		"bin/redis-check":     {r2, "is installed", "bin/redis-check", "symlink to nothing"},
		"bin/half":            {"core/half/1.0/20200101000000", "is not installed", "no release of core/half is installed"},
	}
	for path, says := range want {
		msg, ok := got[path]
		if !ok {
			t.Errorf("%s: no dangling-binlink problem (problems: %q)", path, got)
			continue
		}
		for _, s := range says {
			if !strings.Contains(msg, s) {
				t.Errorf("%s: %q does not say %q", path, msg, s)
			}
		}
	}
	for path := range got {
		if _, ok := want[path]; !ok {
			t.Errorf("%s reported dangling: %q", path, got[path])
		}
	}
}

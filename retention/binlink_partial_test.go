package retention_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// A binlink that `hab pkg binlink` did not make can point at a partial
// store path, a package's or a version's directory (/hab/pkgs/core/tq).
// Habitat's binlinks always name a file inside one release
// (components/hab/src/command/pkg/binlink.rs: the target is
// find_command_in_pkg's path in the release), so such a link is someone's
// way into every release below that directory: it is not "pointing at
// nothing", and each release below it is kept, saying so.
func TestBinlinkToPartialStorePath(t *testing.T) {
	testtool.NeedSymlinks(t)
	const (
		tq1  = "core/tq/1.0/20200101000000"
		tq1b = "core/tq/1.0/20200202000000"
		tq2  = "core/tq/2.0/20210101000000"
		jq1  = "core/jq/1.0/20200101000000"
		jq2  = "core/jq/2.0/20210101000000"
		zz1  = "acme/zz/1.0/20200101000000"
		zz2  = "acme/zz/2.0/20210101000000"
	)
	cases := []struct {
		name, target string
		kept         []string // kept for the link
		removed      []string
		says         string
	}{
		{"package directory", "/hab/pkgs/core/tq", []string{tq1, tq1b, tq2}, []string{jq1, zz1}, "core/tq"},
		{"version directory", "/hab/pkgs/core/tq/1.0", []string{tq1, tq1b}, []string{jq1, zz1}, "core/tq/1.0"},
		{"package directory with a slash", "/hab/pkgs/core/tq/", []string{tq1, tq1b, tq2}, []string{jq1, zz1}, "core/tq"},
		{"relative", "../hab/pkgs/core/tq", []string{tq1, tq1b, tq2}, []string{jq1, zz1}, "core/tq"},
		{"origin directory", "/hab/pkgs/acme", []string{zz1, zz2}, []string{jq1, tq1}, "acme"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			for _, id := range []string{tq1, tq1b, tq2, jq1, jq2, zz1, zz2} {
				oldPkg(b, id)
			}
			b.Binlink("bin", "tq", tc.target)
			inv := scanStore(t, b)
			for _, p := range inv.Verify().Problems {
				if p.Kind == pkgstore.ProblemDanglingBinlink {
					t.Errorf("problem %v: the directory exists", p)
				}
			}
			p, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, nil, now, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range tc.kept {
				if d := decision(t, p, id); d.Action != retention.Keep || !hasCode(d, retention.CodeBinlink, "binlink bin/tq points at "+tc.says) {
					t.Errorf("%s: %+v, want kept for the binlink to %s", id, d, tc.says)
				}
			}
			for _, id := range tc.removed {
				if d := decision(t, p, id); d.Action != retention.Remove {
					t.Errorf("%s: %+v, want removed", id, d)
				}
			}
		})
	}

	// A partial path that does not exist is dangling, as before.
	b := storetest.New(t)
	oldPkg(b, jq1)
	b.Binlink("bin", "tq", "/hab/pkgs/core/tq")
	found := false
	for _, p := range scanStore(t, b).Verify().Problems {
		found = found || (p.Kind == pkgstore.ProblemDanglingBinlink && p.Path == "bin/tq")
	}
	if !found {
		t.Error("a binlink to a missing package directory is not reported dangling")
	}
}

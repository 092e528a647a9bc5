package retention_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestBinstubKeepsItsRelease: on Windows `hab pkg binlink` writes a
// binstub, hab\bin\redis-cli.bat (habitat-sh/habitat
// components/hab/src/command/pkg/binlink.rs, template_binstub.bat), not
// a symlink. The release it runs is kept as the one behind a symlink is,
// and so is each release its PATH names; an older release nothing names
// goes. The store is laid out as Habitat lays it out on Windows (target
// x86_64-windows, C:\hab\pkgs\... in the binstub) and planned for that
// target.
func TestBinstubKeepsItsRelease(t *testing.T) {
	const (
		r1, r2, r3 = "core/redis/6.2.5/20200101000000", "core/redis/7.0.0/20210101000000", "core/redis/7.2.0/20220101000000"
		vc1, vc2   = "core/visual-cpp-redist-2015/14.0.0/20200101000000", "core/visual-cpp-redist-2015/14.0.1/20210101000000"
	)
	win := func(id, file string) string {
		return `C:\hab\pkgs\` + strings.ReplaceAll(id, "/", `\`) + `\` + file
	}
	for _, tc := range []struct {
		name   string
		target string
		env    map[string]string
		kept   map[string]string // ident: what its reason says
		gone   []string
	}{
		{"target", win(r2, `bin\redis-cli.exe`), nil,
			map[string]string{r2: `binlink hab/bin/redis-cli.bat points into it`}, []string{r1, vc1}},
		{"target and its PATH", win(r2, `bin\redis-cli.exe`), map[string]string{"PATH": win(r2, "bin") + ";" + win(vc1, "bin")},
			map[string]string{r2: `binlink hab/bin/redis-cli.bat`, vc1: `binlink hab/bin/redis-cli.bat`}, []string{r1}},
		{"FS_ROOT with slashes", "C:/hab/pkgs/" + r1 + "/bin/redis-cli.exe", nil,
			map[string]string{r1: `binlink hab/bin/redis-cli.bat`}, []string{vc1}},
		{"long path prefix, other case", `\\?\c:\HAB\PKGS\` + strings.ReplaceAll(r1, "/", `\`) + `\bin\redis-cli.exe`, nil,
			map[string]string{r1: `binlink hab/bin/redis-cli.bat`}, []string{vc1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			for _, id := range []string{vc1, vc2} {
				b.Add(storetest.Release{Ident: id, Target: "x86_64-windows", ModTime: old})
			}
			for _, id := range []string{r1, r2, r3} {
				b.Add(storetest.Release{Ident: id, Target: "x86_64-windows", ModTime: old, Deps: []string{vc2},
					Files: map[string]string{"bin/redis-cli.exe": "MZ"}})
			}
			b.Binstub("hab/bin", "redis-cli", tc.target, tc.env)
			inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-windows"})
			if err != nil {
				t.Fatal(err)
			}
			p, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, nil, now, nil)
			if err != nil {
				t.Fatal(err)
			}
			for id, says := range tc.kept {
				if d := decision(t, p, id); d.Action != retention.Keep || !hasCode(d, retention.CodeBinlink, says) {
					t.Errorf("%s: %+v, want kept: %s", id, d, says)
				}
			}
			for _, id := range tc.gone {
				if d := decision(t, p, id); d.Action != retention.Remove {
					t.Errorf("%s: %+v, want removed (nothing names it)", id, d)
				}
			}
		})
	}
}

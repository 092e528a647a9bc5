//go:build windows

package retention_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestApplyWindowsCaseNames: Windows names are case-insensitive, so a
// TDEPS line or a binstub that names a release in another case than its
// directory (Core/Redis for core/redis) keeps that release, as Habitat
// (habitat-sh/habitat components/core/src/package/list.rs
// package_list_for_ident, a path joined from the ident as given) and
// Windows open it under either spelling. Only what nothing names goes.
func TestApplyWindowsCaseNames(t *testing.T) {
	const (
		app      = "core/app/1.0.0/20220101000000"
		tool1    = "core/tool/1.0.0/20210101000000"
		tool2    = "core/tool/1.0.0/20220101000000"
		redisDep = "Core/Redis/4.0.14/20200101000000" // redis1 in another case
	)
	b := windowsStore(t)
	b.Add(storetest.Release{Ident: app, Target: "x86_64-windows", ModTime: old, Deps: []string{redisDep}, TDeps: []string{redisDep}},
		storetest.Release{Ident: tool1, Target: "x86_64-windows", ModTime: old, Files: map[string]string{"bin/tool.exe": "MZ"}},
		storetest.Release{Ident: tool2, Target: "x86_64-windows", ModTime: old, Files: map[string]string{"bin/tool.exe": "MZ"}})
	b.Binstub("hab/bin", "tool", `C:\hab\pkgs\CORE\TOOL\1.0.0\20210101000000\bin\tool.exe`, nil)
	res := applyWindows(t, b.Root)
	for _, kept := range []string{redis1, redis3, app, tool1, tool2} {
		if !exists(b.PkgPath(kept)) {
			t.Errorf("%s was removed", kept)
		}
	}
	if exists(b.PkgPath(redis2)) || res.Removed != 1 {
		t.Errorf("result %+v, want %s removed, nothing else", res, redis2)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// problemTable reads docs/output.md's problem-kinds table: kind -> whether
// `run --json` reports it.
func problemTable(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../../docs/output.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|.*\\| (yes|no: `check` only) \\|$")
	out := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = m[2] == "yes"
	}
	return out
}

// TestProblemKindsDocumented keeps docs/output.md's problem-kinds table
// true: it lists every kind pkgstore defines, and for kinds a test store
// can show, `run --json` and `check --json` report exactly what its last
// column says.
func TestProblemKindsDocumented(t *testing.T) {
	table := problemTable(t)
	src, err := os.ReadFile("../../pkgstore/problem.go")
	if err != nil {
		t.Fatal(err)
	}
	defined := regexp.MustCompile(`ProblemKind = "([a-z-]+)"`).FindAllStringSubmatch(string(src), -1)
	if len(defined) < 10 {
		t.Fatalf("found only %d problem kinds in pkgstore/problem.go", len(defined))
	}
	for _, m := range defined {
		if _, ok := table[m[1]]; !ok {
			t.Errorf("problem kind %s is not in docs/output.md's table", m[1])
		}
	}
	if len(table) != len(defined) {
		t.Errorf("docs/output.md lists %d kinds, pkgstore defines %d", len(table), len(defined))
	}

	// A store showing four kinds: a dependency not installed, a DEPS line
	// TDEPS lacks, a spec nothing satisfies, a binlink to nothing.
	root := testtool.TempDir(t)
	b := storetest.At(t, root)
	old := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	b.Add(storetest.Release{Ident: "core/glibc/2.33/20210101000000", ModTime: old})
	b.Add(storetest.Release{Ident: "core/zlib/1.2/20210101000000", ModTime: old})
	b.Add(storetest.Release{Ident: "core/app/1.0/20210101000000", ModTime: old,
		Deps:  []string{"core/glibc/2.33/20210101000000", "core/zlib/1.2/20210101000000", "core/gone/1.0/20200101000000"},
		TDeps: []string{"core/glibc/2.33/20210101000000", "core/gone/1.0/20200101000000"}})
	os.MkdirAll(filepath.Join(root, "hab/sup/default/specs"), 0o755)
	os.WriteFile(filepath.Join(root, "hab/sup/default/specs/ghost.spec"), []byte("ident = \"core/ghost\"\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	if !testtool.Symlink(t, "/hab/pkgs/core/app/9.9/20990101000000/bin/app", filepath.Join(root, "bin", "app")) {
		// Windows' binlink: a binstub naming a release not installed.
		b.Binstub("hab/bin", "app", `C:\hab\pkgs\core\app\9.9\20990101000000\bin\app.exe`, nil)
	}
	shown := []string{"dep-not-installed", "deps-not-in-tdeps", "spec-unmatched", "dangling-binlink"}

	kinds := func(args ...string) map[string]bool {
		code, stdout, stderr := hab(t, nil, append(args, "--json", "--fs-root", root, "--target", "x86_64-linux")...)
		var r struct {
			Problems []struct{ Kind string }
		}
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%v: exit %d: %v\n%s\n%s", args, code, err, stdout, stderr)
		}
		got := map[string]bool{}
		for _, p := range r.Problems {
			got[p.Kind] = true
		}
		return got
	}
	run := kinds("run", "--dry-run", "--keep-latest=1", "--min-age=none", "--allow-damaged")
	check := kinds("check")
	for _, k := range shown {
		if !check[k] {
			t.Errorf("check --json does not report %s on a store that has it", k)
		}
		if run[k] != table[k] {
			t.Errorf("%s: run --json reports it: %v; docs/output.md says %v", k, run[k], table[k])
		}
	}
	if t.Failed() {
		t.Logf("run: %v\ncheck: %v\ntable: %s", run, check, strings.Join(shown, ","))
	}
}

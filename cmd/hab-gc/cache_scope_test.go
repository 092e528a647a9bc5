package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// possumsFixture is Habitat's own test archive
// (components/core/tests/fixtures/unhappyhumans-possums-8.1.4-20160427165340-x86_64-linux.hart,
// which Habitat reads as happyhumans/possums/8.1.4/20160427165340), read
// from ../shared/habitat-fixtures beside the repository; when that is
// absent, an archive the tests generate in the same shape (parent
// directories first, TARGET x86_64-linux).
func possumsFixture(t *testing.T) []byte {
	t.Helper()
	if b := testtool.HabitatFixture(t, "unhappyhumans-possums-8.1.4-20160427165340-x86_64-linux.hart"); b != nil {
		return b
	}
	t.Logf("Habitat's fixtures (../shared/habitat-fixtures) are absent: a generated archive of the same shape stands in")
	return storetest.Archive{Ident: "happyhumans/possums/8.1.4/20160427165340", Parents: true, Target: "x86_64-linux"}.Bytes()
}

// cacheScopeStore is an installed store (core/redis 5.0.1 and 6.2.6,
// core/nginx 1.0.0 and 2.0.0) with an artifact cache of archives of both,
// of happyhumans/possums (Habitat's fixture) and of core/redis/6.2.6 for
// aarch64-linux. It returns the FS root and the cache directory.
func cacheScopeStore(t *testing.T) (string, string) {
	t.Helper()
	b := storetest.New(t)
	b.Pkg("core/redis/5.0.1/20210101000000").Pkg("core/redis/6.2.6/20220101000000")
	b.Pkg("core/nginx/1.0.0/20210101000000").Pkg("core/nginx/2.0.0/20220101000000")
	dir := b.Path("hab/cache/artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	archives := map[string][]byte{
		"core-redis-6.2.6-20220101000000-x86_64-linux.hart": storetest.Hart("core/redis/6.2.6/20220101000000"),
		"core-redis-5.0.1-20210101000000-x86_64-linux.hart": storetest.Hart("core/redis/5.0.1/20210101000000"),
		"core-nginx-1.0.0-20210101000000-x86_64-linux.hart": storetest.Hart("core/nginx/1.0.0/20210101000000"),
		"core-nginx-0.9.0-20200101000000-x86_64-linux.hart": storetest.Hart("core/nginx/0.9.0/20200101000000"),
		// Habitat's fixture: its file name says unhappyhumans, its IDENT
		// happyhumans/possums.
		"unhappyhumans-possums-8.1.4-20160427165340-x86_64-linux.hart": possumsFixture(t),
		"happyhumans-possums-8.1.3-20160101000000-x86_64-linux.hart":   storetest.Archive{Ident: "happyhumans/possums/8.1.3/20160101000000", Parents: true}.Bytes(),
		// The installed ident, built for another target.
		"core-redis-6.2.6-20220101000000-aarch64-linux.hart": storetest.Archive{Ident: "core/redis/6.2.6/20220101000000", Target: "aarch64-linux"}.Bytes(),
	}
	for name, data := range archives {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return b.Root, dir
}

// TestRunCacheScope: --only and --exclude reach the
// artifact cache, and an archive counts for its own target only.
func TestRunCacheScope(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		flags []string
		// want is each checked file's action and reason codes. An
		// archive of a release that is not installed and in the run's
		// scope is not checked: a fresh one counts as being installed
		// (pkgstore's Inventory.Fetched), and the files here are fresh.
		want map[string]string
	}{
		{"only core/redis", []string{"--only", "core/redis"}, map[string]string{
			"core-redis-6.2.6-20220101000000-x86_64-linux.hart":            "keep release-kept",
			"core-redis-5.0.1-20210101000000-x86_64-linux.hart":            "remove removed-in-run",
			"core-nginx-1.0.0-20210101000000-x86_64-linux.hart":            "keep outside-only",
			"core-nginx-0.9.0-20200101000000-x86_64-linux.hart":            "keep outside-only",
			"unhappyhumans-possums-8.1.4-20160427165340-x86_64-linux.hart": "keep outside-only",
			"happyhumans-possums-8.1.3-20160101000000-x86_64-linux.hart":   "keep outside-only",
			"core-redis-6.2.6-20220101000000-aarch64-linux.hart":           "leave foreign-target",
		}},
		{"exclude happyhumans/possums", []string{"--exclude", "happyhumans/possums", "--allow-unmatched"}, map[string]string{
			"core-redis-6.2.6-20220101000000-x86_64-linux.hart":            "keep release-kept",
			"core-redis-5.0.1-20210101000000-x86_64-linux.hart":            "remove removed-in-run",
			"core-nginx-1.0.0-20210101000000-x86_64-linux.hart":            "remove removed-in-run",
			"unhappyhumans-possums-8.1.4-20160427165340-x86_64-linux.hart": "keep excluded",
			"happyhumans-possums-8.1.3-20160101000000-x86_64-linux.hart":   "keep excluded",
			"core-redis-6.2.6-20220101000000-aarch64-linux.hart":           "leave foreign-target",
		}},
		{"everything", nil, map[string]string{
			"core-redis-6.2.6-20220101000000-x86_64-linux.hart":  "keep release-kept",
			"core-redis-5.0.1-20210101000000-x86_64-linux.hart":  "remove removed-in-run",
			"core-nginx-1.0.0-20210101000000-x86_64-linux.hart":  "remove removed-in-run",
			"core-redis-6.2.6-20220101000000-aarch64-linux.hart": "leave foreign-target",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, dir := cacheScopeStore(t)
			// --install-window=1ns: the archives count as old (see TestRunCache).
			args := append([]string{"run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false", "--install-window=1ns", "--target", "x86_64-linux",
				"--fs-root", root, "--cache", "--cache-keep-latest=0", "--json"}, tt.flags...)
			var out, errb bytes.Buffer
			if code := execute(args, &out, &errb, func(string) (string, bool) { return "", false }); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var rep struct {
				Cache []struct {
					File    string       `json:"file"`
					Action  string       `json:"action"`
					Reasons []reasonJSON `json:"reasons"`
					Outcome *outcomeJSON `json:"outcome"`
				} `json:"cache"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			if len(rep.Cache) != 7 { // every archive cacheScopeStore writes
				t.Fatalf("cache list %+v", rep.Cache)
			}
			for _, f := range rep.Cache {
				if _, ok := tt.want[f.File]; !ok {
					continue
				}
				got := f.Action
				for _, r := range f.Reasons {
					got += " " + r.Code
				}
				if got != tt.want[f.File] {
					t.Errorf("%s: %q (%+v), want %q", f.File, got, f.Reasons, tt.want[f.File])
				}
				_, err := os.Lstat(filepath.Join(dir, f.File))
				if gone := err != nil; gone != strings.HasPrefix(tt.want[f.File], "remove") {
					t.Errorf("%s: gone %v, want %q", f.File, gone, tt.want[f.File])
				}
			}
		})
	}
}

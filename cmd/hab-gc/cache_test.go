package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestRunCache: run --cache removes the archives of releases that are not
// installed or removed by the run, keeps the newest one of each package
// and those of kept releases, and leaves a corrupt .hart, a non-hart file
// and a download in progress alone; the JSON lists each decision.
func TestRunCache(t *testing.T) {
	t.Parallel()
	b := storetest.New(t)
	b.Pkg("core/redis/5.0.1/20210101000000").Pkg("core/redis/6.2.6/20220101000000")
	dir := b.Path("hab/cache/artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"core-redis-6.2.6-20220101000000-x86_64-linux.hart":       storetest.Hart("core/redis/6.2.6/20220101000000"), // kept
		"core-redis-5.0.1-20210101000000-x86_64-linux.hart":       storetest.Hart("core/redis/5.0.1/20210101000000"), // removed in run: newest not kept
		"core-redis-4.0.0-20200101000000-x86_64-linux.hart":       storetest.Hart("core/redis/4.0.0/20200101000000"), // not installed
		"core-redis-3.0.0-20190101000000-x86_64-linux.hart":       storetest.Hart("core/redis/3.0.0/20190101000000"), // not installed
		"broken-x86_64-linux.hart":                                append([]byte(storetest.HartHeader), "not xz"...),
		"notes.txt":                                               []byte("mine\n"),
		".core-redis-7.0.0-20230101000000-x86_64-linux.hart.part": storetest.Hart("core/redis/7.0.0/20230101000000"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	// The archives are as old as the cache's usually are (a test cannot
	// age their change times): with the default install window, the fresh
	// archives of releases that are not installed would make every
	// removal wait (TestRunWaitsForFetchedArchive).
	// The store and the archives are x86_64-linux's, whatever the machine.
	code := execute([]string{"run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false", "--fs-root", b.Root, "--cache", "--json", "--install-window=1ns",
		"--target", storetest.DefaultTarget},
		&out, &errb, func(string) (string, bool) { return "", false })
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep struct {
		Cache []struct {
			File    string  `json:"file"`
			Ident   *string `json:"ident"`
			Action  string  `json:"action"`
			Reasons []struct {
				Code string `json:"code"`
			} `json:"reasons"`
			Size    int64        `json:"size"`
			Outcome *outcomeJSON `json:"outcome"`
		} `json:"cache"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"core-redis-6.2.6-20220101000000-x86_64-linux.hart":       "keep release-kept",
		"core-redis-5.0.1-20210101000000-x86_64-linux.hart":       "keep removed-in-run cache-latest",
		"core-redis-4.0.0-20200101000000-x86_64-linux.hart":       "remove not-installed removed",
		"core-redis-3.0.0-20190101000000-x86_64-linux.hart":       "remove not-installed removed",
		"broken-x86_64-linux.hart":                                "leave not-hart",
		"notes.txt":                                               "leave not-hart",
		".core-redis-7.0.0-20230101000000-x86_64-linux.hart.part": "leave dot-file",
	}
	if len(rep.Cache) != len(want) {
		t.Fatalf("cache list %+v", rep.Cache)
	}
	for _, f := range rep.Cache {
		got := f.Action
		for _, r := range f.Reasons {
			got += " " + r.Code
		}
		if f.Outcome != nil {
			got += " " + f.Outcome.Status
		}
		if got != want[f.File] {
			t.Errorf("%s: %q, want %q", f.File, got, want[f.File])
		}
		_, err := os.Lstat(filepath.Join(dir, f.File))
		if gone := err != nil; gone != strings.HasSuffix(want[f.File], "removed") {
			t.Errorf("%s: gone %v, want %q", f.File, gone, want[f.File])
		}
		if f.Action != "leave" && (f.Ident == nil || f.Size <= 0) {
			t.Errorf("%s: ident %v, size %d", f.File, f.Ident, f.Size)
		}
	}
	if _, err := os.Stat(b.PkgPath("core/redis/5.0.1/20210101000000")); err == nil {
		t.Errorf("core/redis/5.0.1 still installed")
	}
}

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

// TestRunCacheUnreadable: with --cache, the JSON always has "cache"; when
// the cache could not be read (a symlinked or non-directory level, which
// hab-gc refuses) it is empty, "cache_error" says why, and the run exits 4
// (partial: the store's part was done, the cache's was not), dry run or
// not. No cache at all is nothing to clean: "cache": [], exit 0.
func TestRunCacheUnreadable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		make      func(t *testing.T, b *storetest.Builder)
		wantCode  int
		wantError string
	}{
		{"no cache", func(*testing.T, *storetest.Builder) {}, 0, ""},
		{"artifacts a symlink", func(t *testing.T, b *storetest.Builder) {
			testtool.NeedSymlinks(t)
			other := filepath.Join(b.Root, "elsewhere")
			os.MkdirAll(other, 0o755)
			os.MkdirAll(b.Path("hab/cache"), 0o755)
			if err := os.Symlink(other, b.Path("hab/cache/artifacts")); err != nil {
				panic(err)
			}
		}, exitPartial, "hab/cache/artifacts is a symlink"},
		{"cache a file", func(_ *testing.T, b *storetest.Builder) {
			b.File("hab/cache", "not a directory\n")
		}, exitPartial, "hab/cache is a regular file"},
	}
	for _, tc := range cases {
		for _, dry := range []bool{true, false} {
			name := tc.name + map[bool]string{true: " dry run", false: ""}[dry]
			t.Run(name, func(t *testing.T) {
				b := hostStore(t)
				b.Pkg("core/redis/5.0.1/20210101000000").Pkg("core/redis/6.2.6/20220101000000")
				tc.make(t, b)
				args := []string{"run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false", "--fs-root", b.Root, "--cache", "--json"}
				if dry {
					args = append(args, "--dry-run")
				}
				var out, errb bytes.Buffer
				code := execute(args, &out, &errb, func(string) (string, bool) { return "", false })
				if code != tc.wantCode {
					t.Fatalf("exit %d, want %d: %s", code, tc.wantCode, errb.String())
				}
				var rep map[string]json.RawMessage
				if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
					t.Fatalf("%v: %s", err, out.String())
				}
				if c, ok := rep["cache"]; !ok || string(c) != "[]" {
					t.Fatalf("cache key %q (present %v), want []", c, ok)
				}
				var cerr string
				if raw, ok := rep["cache_error"]; ok {
					json.Unmarshal(raw, &cerr)
				}
				if tc.wantError == "" && cerr != "" || !strings.Contains(cerr, tc.wantError) {
					t.Fatalf("cache_error %q, want %q", cerr, tc.wantError)
				}
				if tc.wantError != "" && !strings.Contains(errb.String(), tc.wantError) {
					t.Fatalf("stderr %q does not say %q", errb.String(), tc.wantError)
				}
				if _, err := os.Stat(b.PkgPath("core/redis/5.0.1/20210101000000")); dry == (err != nil) {
					t.Fatalf("old release: %v (dry run %v)", err, dry)
				}
			})
		}
	}
}

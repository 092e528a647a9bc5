package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestRunWaitsForFetchedArchive: an archive of a release that
// is not installed, just come into the cache (a download Habitat is about
// to verify and unpack, for a package that may use what it found
// installed), makes a run remove nothing, saying why; --install-window
// (HAB_GC_INSTALL_WINDOW) sets how long that lasts, and cannot turn it
// off.
func TestRunWaitsForFetchedArchive(t *testing.T) {
	t.Parallel()
	b := storetest.New(t)
	b.Pkg("core/redis/5.0.1/20210101000000").Pkg("core/redis/6.2.6/20220101000000")
	dir := b.Path("hab/cache/artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const archive = "core-nginx-1.0.0-20230101000000-x86_64-linux.hart"
	if err := os.WriteFile(filepath.Join(dir, archive), storetest.Hart("core/nginx/1.0.0/20230101000000"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := b.PkgPath("core/redis/5.0.1/20210101000000")
	base := []string{"run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false", "--target", "x86_64-linux", "--fs-root", b.Root}
	for _, tc := range []struct {
		name    string
		args    []string
		env     map[string]string
		code    int
		want    string // in stdout (the report) or stderr (an error)
		removed bool
	}{
		{"default window: removals wait", nil, nil, 0, "hab/cache/artifacts/" + archive, false},
		{"none refused", []string{"--install-window=none"}, nil, 2, "invalid install-window", false},
		{"negative refused", []string{"--install-window=-1s"}, nil, 2, "invalid install-window", false},
		{"a window the archive is older than", []string{"--install-window=1ns"}, nil, 0, "removed", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := execute(append(base, tc.args...), &out, &errb, func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out.String(), errb.String())
			}
			if !strings.Contains(out.String()+errb.String(), tc.want) {
				t.Errorf("output lacks %q:\n%s%s", tc.want, out.String(), errb.String())
			}
			if _, err := os.Stat(old); (err != nil) != tc.removed {
				t.Fatalf("core/redis/5.0.1 removed %v, want %v\n%s", err != nil, tc.removed, out.String())
			}
		})
	}
}

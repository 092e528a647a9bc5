package retention_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/retention"
)

// TestAllowDamagedSymlinkedDir: with --allow-damaged, an origin, name,
// version or release directory that is a symlink (Habitat follows it and lists what
// it holds; hab-gc never enters it) may hold releases whose DEPS name
// anything in the store: what they need is unknown, so nothing is
// removed.
func TestAllowDamagedSymlinkedDir(t *testing.T) {
	testtool.NeedSymlinks(t)
	for _, level := range []string{"origin", "name", "version", "release"} {
		t.Run(level, func(t *testing.T) {
			b := storetest.New(t)
			oldPkg(b, "core/a/1/20200101000000")
			oldPkg(b, "core/a/2/20200101000001")
			// Elsewhere: a release of core/b that needs core/a/1.
			other := storetest.New(t)
			other.Add(storetest.Release{Ident: "core/b/1/20200101000000", Deps: []string{"core/a/1/20200101000000"}, ModTime: old})
			src := map[string]string{
				"origin":  "hab/pkgs/core",
				"name":    "hab/pkgs/core/b",
				"version": "hab/pkgs/core/b/1",
				"release": "hab/pkgs/core/b/1/20200101000000",
			}[level]
			link := filepath.Join(b.Root, src)
			if level == "origin" {
				link = filepath.Join(b.Root, "hab/pkgs/other")
			}
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(other.Root, src), link); err != nil {
				t.Fatal(err)
			}
			p := plan(t, b, retention.Policy{KeepLatest: 1, AllowDamaged: true})
			if d := decision(t, p, "core/a/1/20200101000000"); d.Action != retention.Keep {
				t.Errorf("core/a/1 is %s (%v): a release under the symlinked %s directory may need it", d.Action, d.Reasons, level)
			}
		})
	}
}

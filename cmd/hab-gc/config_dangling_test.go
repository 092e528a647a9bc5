package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestConfigDanglingSymlink: FS_ROOT/hab/etc/hab-gc.toml as a symlink to a
// file that is not there (yet: a volume not mounted, a config not
// deployed) is not "no config file": its pins would silently be dropped
// and what they keep removed. It is refused, naming the file; nothing is
// removed.
func TestConfigDanglingSymlink(t *testing.T) {
	testtool.NeedSymlinks(t)
	b := hostStore(t)
	b.Pkg("core/a/1/20200101000000").Pkg("core/a/2/20200101000001")
	cfg := filepath.Join(b.Root, "hab", "etc", "hab-gc.toml")
	noErr(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
	noErr(t, os.Symlink(filepath.Join(testtool.TempDir(t), "not-mounted", "hab-gc.toml"), cfg))
	code, _, errs := hab(t, nil, "run", "--fs-root", b.Root, "--keep-latest=1", "--min-age=none", "--runtime-roots=false")
	if code != exitUsage || !strings.Contains(errs, cfg) {
		t.Errorf("exit %d, stderr %q; want %d naming %s", code, errs, exitUsage, cfg)
	}
	if _, err := os.Stat(b.PkgPath("core/a/1/20200101000000")); err != nil {
		t.Errorf("removed although the config file could not be read: %v", err)
	}
}

//go:build windows

package retention_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestApplyWindowsLongPath: releases whose files lie past MAX_PATH (260
// characters) are hidden and removed whole, the newest kept. (Wine does
// not enforce MAX_PATH: on a Windows machine without long paths enabled,
// this shows the \\?\ prefix is used.)
func TestApplyWindowsLongPath(t *testing.T) {
	root := testtool.TempDir(t)
	for len(root) < 230 {
		root = filepath.Join(root, strings.Repeat("r", 40))
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	b := storetest.At(t, root)
	deep := "lib/" + strings.Repeat("l", 60) + "/" + strings.Repeat("m", 60) + ".dll"
	for _, id := range []string{redis1, redis2, redis3} {
		b.Add(storetest.Release{Ident: id, Target: "x86_64-windows", ModTime: old, Files: map[string]string{"bin/redis-cli.exe": "MZ", deep: "MZ"}})
	}
	if n := len(filepath.Join(b.PkgPath(redis1), deep)); n <= 260 {
		t.Fatalf("the deepest file is only %d characters", n)
	}
	res := applyWindows(t, b.Root)
	if res.Removed != 2 || res.Failed != 0 {
		t.Fatalf("result %+v, want 2 removed", res)
	}
	for _, gone := range []string{redis1, redis2} {
		if exists(b.PkgPath(gone)) {
			t.Errorf("%s still there", gone)
		}
	}
	if !exists(filepath.Join(b.PkgPath(redis3), filepath.FromSlash(deep))) {
		t.Errorf("%s was removed", redis3)
	}
}

//go:build windows

package pkgstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// longRoot is an FS root whose store's release files lie past MAX_PATH
// (260 characters), which Windows' path calls refuse without the \\?\
// prefix (os adds it; winfs.LongPath for the windows package's calls).
func longRoot(t *testing.T) string {
	t.Helper()
	root := testtool.TempDir(t)
	for len(root) < 230 {
		root = filepath.Join(root, strings.Repeat("r", 40))
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestLongPathStore: a store whose paths pass 260 characters is scanned,
// sized, locked and its binstubs read, a binstub naming its target with
// the \\?\ prefix included. Wine does not enforce MAX_PATH (a plain
// CreateFile of a 305-character path opens it), so under Wine this shows
// that long paths are handled, not that they need the prefix: on a
// Windows machine without long paths enabled (the default), it does.
func TestLongPathStore(t *testing.T) {
	const r1, r2 = "core/redis/7.0.0/20210101000000", "core/redis/7.0.0/20220101000000"
	b := storetest.At(t, longRoot(t))
	for _, r := range []string{r1, r2} {
		b.Add(storetest.Release{Ident: r, Target: "x86_64-windows", Files: map[string]string{"bin/redis-cli.exe": "MZ",
			"lib/" + strings.Repeat("l", 60) + "/" + strings.Repeat("m", 60) + ".dll": "MZ"}})
	}
	deep := filepath.Join(b.PkgPath(r1), "lib", strings.Repeat("l", 60), strings.Repeat("m", 60)+".dll")
	if len(deep) <= 260 {
		t.Fatalf("%s is only %d characters", deep, len(deep))
	}
	b.Binstub("hab/bin", "redis-cli", `\\?\`+filepath.Join(b.PkgPath(r1), "bin", "redis-cli.exe"), nil)
	s, err := pkgstore.Open(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	unlock, err := s.Lock(context.Background(), 0)
	if err != nil {
		t.Fatalf("locking a store at %d characters: %v", len(s.Path()), err)
	}
	defer unlock()
	inv, err := s.Scan(context.Background(), pkgstore.Options{Target: "x86_64-windows", Sizes: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := idents(inv.Releases); strings.Join(got, " ") != r1+" "+r2 {
		t.Errorf("releases %v", got)
	}
	for _, p := range inv.Problems {
		t.Errorf("problem %s", p)
	}
	for _, r := range inv.Releases {
		if r.Size <= 0 {
			t.Errorf("%s: size %d", r.Ident, r.Size)
		}
	}
	if len(inv.Binlinks) != 1 || inv.Binlinks[0].Release.String() != r1 || inv.Binlinks[0].Dangling {
		t.Errorf("binlinks %+v, want one into %s", inv.Binlinks, r1)
	}
}

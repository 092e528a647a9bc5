package artifactcache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// habitatFixture reads one of Habitat's own fixtures from
// ../shared/habitat-fixtures beside the repository, skipping when absent.
func habitatFixture(t *testing.T, name string) []byte {
	t.Helper()
	b := testtool.HabitatFixture(t, name)
	if b == nil {
		t.Skipf("Habitat's fixture %s is absent (see ../shared/habitat-fixtures/README.md); the generated archives cover the same shape", name)
	}
	return b
}

// TestIdentifyHabitatShapes: Habitat identifies an archive by
// its entries' paths and IDENT (components/core/src/package/archive.rs), so
// an archive whose tar starts with the parent directories hab/, hab/pkgs,
// ... (Habitat's own test fixture), or whose entries are under opt/hab/pkgs,
// is that release's archive, whatever the file is named.
func TestIdentifyHabitatShapes(t *testing.T) {
	const possums = "happyhumans/possums/8.1.4/20160427165340"
	cases := []struct {
		name string
		data func(t *testing.T) []byte
		want string
	}{
		{"Habitat's fixture", func(t *testing.T) []byte {
			return habitatFixture(t, "unhappyhumans-possums-8.1.4-20160427165340-x86_64-linux.hart")
		}, possums},
		{"generated, parent directories first", func(*testing.T) []byte {
			return storetest.Archive{Ident: possums, Parents: true, TDeps: []string{"core/glibc/2.35/20220101000000"}, Payload: []string{"share/signme.dat"}, MetaLast: true}.Bytes()
		}, possums},
		{"opt/hab/pkgs prefix", func(*testing.T) []byte {
			return storetest.Archive{Ident: "core/redis/6.2.5/20211101000000", Prefix: "opt/", Parents: true}.Bytes()
		}, "core/redis/6.2.5/20211101000000"},
		{"leading slash", func(*testing.T) []byte {
			return storetest.Archive{Ident: "core/redis/6.2.5/20211101000000", Prefix: "/"}.Bytes()
		}, "core/redis/6.2.5/20211101000000"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			_, id, err := Identify(bytes.NewReader(tt.data(t)))
			if err != nil || id.String() != tt.want {
				t.Fatalf("Identify = %v, %v; want %s", id, err, tt.want)
			}
		})
	}
	// In a cache, under the fixture's misleading file name, it is kept
	// or removed as the release it holds, never left "not a .hart".
	root := testtool.TempDir(t)
	dir := filepath.Join(root, Dir)
	os.MkdirAll(dir, 0o755)
	data := storetest.Archive{Ident: possums, Parents: true, Payload: []string{"share/signme.dat"}}.Bytes()
	if err := os.WriteFile(filepath.Join(dir, "unhappyhumans-possums-8.1.4-20160427165340-x86_64-linux.hart"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	c := openCache(t, root)
	files, err := c.Plan(t.Context(), func(id pkgstore.Ident) ReleaseState { return NotInstalled }, Options{KeepLatest: retention.KeepNone, MinAge: retention.NoMinAge, Target: "x86_64-linux"})
	if err != nil || len(files) != 1 || files[0].Ident == nil || files[0].Ident.String() != possums || files[0].Action != Remove {
		t.Fatalf("plan %+v, %v", files, err)
	}
}

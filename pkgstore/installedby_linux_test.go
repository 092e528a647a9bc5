package pkgstore_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hab-gc/hab-gc/internal/provenance"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestInstalledBy: a record counts for the very directory it was made
// of: the same release removed and installed again since (another inode)
// was installed by an unknown program. A record file that cannot be read
// is a problem naming it, and every release is unknown.
func TestInstalledBy(t *testing.T) {
	t.Parallel()
	const sup, again = "core/redis/1.0.0/20240101000000", "core/redis/2.0.0/20240201000000"
	b := storetest.New(t).Old(sup, again)
	record := func(ident, by string) {
		var st syscall.Stat_t
		if err := syscall.Lstat(b.PkgPath(ident), &st); err != nil {
			t.Fatal(err)
		}
		if err := provenance.Append(context.Background(), b.Root, provenance.Record{Ident: ident, By: by, Dev: uint64(st.Dev), Ino: uint64(st.Ino)}); err != nil {
			t.Fatal(err)
		}
	}
	record(sup, provenance.Supervisor)
	record(again, "hab")
	// Installed again: a new directory, renamed over the old one's name.
	tmp := b.PkgPath(again) + ".new"
	if err := os.Rename(b.PkgPath(again), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(b.PkgPath(again), 0o755); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(b.PkgPath(again), e.Name()))
	}
	os.Remove(tmp)
	scan := func() (*pkgstore.Inventory, map[string]string) {
		inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: storetest.DefaultTarget})
		if err != nil {
			t.Fatal(err)
		}
		by := map[string]string{}
		for _, r := range inv.Releases {
			by[r.Ident.String()] = inv.InstalledBy(r)
		}
		return inv, by
	}
	if _, by := scan(); by[sup] != provenance.Supervisor || by[again] != provenance.Unknown {
		t.Fatalf("installed by: %v; want %s by %s, %s by %s", by, sup, provenance.Supervisor, again, provenance.Unknown)
	}
	f := filepath.Join(b.Root, filepath.FromSlash(provenance.Dir), provenance.File)
	os.Remove(f)
	os.Mkdir(f, 0o700)
	inv, by := scan()
	if by[sup] != provenance.Unknown {
		t.Errorf("%s installed by %s with an unreadable record", sup, by[sup])
	}
	found := false
	for _, p := range inv.Problems {
		found = found || (p.Kind == pkgstore.ProblemInstalledBy && p.Path == provenance.Dir+"/"+provenance.File && !p.Blocking)
	}
	if !found {
		t.Errorf("no non-blocking %s problem naming the file: %+v", pkgstore.ProblemInstalledBy, inv.Problems)
	}
}

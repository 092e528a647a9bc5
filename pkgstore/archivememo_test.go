//go:build unix

package pkgstore_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestRescanTakesArchiveReadsAgain: a Rescan does not read again an
// archive of the artifact cache that is the same file (name, inode, size,
// times) as the scan before it read, and had settled then (its last change
// archiveSettle before the read: here a nanosecond); one rewritten since it
// reads again, and so does a full Scan; with the default settle time (3 s),
// an archive written just now is read again by every Rescan.
func TestRescanTakesArchiveReadsAgain(t *testing.T) {
	ctx := context.Background()
	b := storetest.New(t)
	b.Pkg("core/redis/5.0.1/20210101000000")
	a := storetest.Archive{Ident: "core/redis/6.0.0/20220101000000"}
	cache := b.Path(pkgstore.ArtifactCacheDir)
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	file := cache + "/" + a.FileName()
	if err := os.WriteFile(file, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	store := storetest.Open(t, b.Root)
	opts := pkgstore.WithArchiveSettle(pkgstore.Options{Target: storetest.DefaultTarget, Now: time.Now()}, time.Nanosecond)
	fetched := func(inv *pkgstore.Inventory) string {
		t.Helper()
		if len(inv.Fetched) != 1 {
			t.Fatalf("fetched %+v, want one archive", inv.Fetched)
		}
		return inv.Fetched[0].Release.String()
	}
	inv, err := store.Scan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := fetched(inv); got != a.Ident {
		t.Fatalf("scan: fetched %s", got)
	}
	const forged = "core/forged/1.0.0/20230101000000"
	if n := pkgstore.ForgeArchiveReads(inv, forged); n != 1 {
		t.Fatalf("%d archive reads kept, want 1", n)
	}
	again, err := store.Rescan(ctx, inv, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := fetched(again); got != forged {
		t.Errorf("rescan of the same file: fetched %s, want the read taken again (%s)", got, forged)
	}
	// Rewritten in place (same name and inode, another ident): read again.
	b2 := storetest.Archive{Ident: "core/redis/6.0.1/20220201000000"}
	if err := os.WriteFile(file, b2.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// Its own modification time, whatever the clock's tick: the rewrite
	// is a change the key sees.
	if err := os.Chtimes(file, time.Now(), time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	pkgstore.ForgeArchiveReads(again, forged)
	third, err := store.Rescan(ctx, again, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := fetched(third); got != b2.Ident {
		t.Errorf("rescan after a rewrite: fetched %s, want %s", got, b2.Ident)
	}
	pkgstore.ForgeArchiveReads(third, forged)
	full, err := store.Scan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := fetched(full); got != b2.Ident {
		t.Errorf("full scan: fetched %s, want %s", got, b2.Ident)
	}
	// Not settled: the default settle time, the file just written.
	if err := os.WriteFile(file, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	def := pkgstore.Options{Target: storetest.DefaultTarget, Now: time.Now()}
	fresh, err := store.Scan(ctx, def)
	if err != nil {
		t.Fatal(err)
	}
	pkgstore.ForgeArchiveReads(fresh, forged)
	if again, err := store.Rescan(ctx, fresh, nil, def); err != nil {
		t.Fatal(err)
	} else if got := fetched(again); got != a.Ident {
		t.Errorf("rescan of an archive changed just before the read: fetched %s, want it read again (%s)", got, a.Ident)
	}
}

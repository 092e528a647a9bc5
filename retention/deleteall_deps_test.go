package retention_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestDeleteAllCancelPutsBackNoReleaseWithoutItsDependency: a cancel
// while the workers delete puts back each release not started, and such
// a release must come back with what it needs. acme/app/1.0 (X) needs
// core/lib/1.0 (Y); both are removed, and X is hidden before Y (dependents
// first). X's worker is busy with a large release of the same package (W,
// hidden before X); Y is another package's, so another worker's. The run
// is cancelled as soon as Y is gone, or once part of W is: X was not
// started then, so it is put back, and Y must not have been deleted
// before it (as deleting one release after another in the hiding's order
// never did).
func TestDeleteAllCancelPutsBackNoReleaseWithoutItsDependency(t *testing.T) {
	const (
		w  = "acme/app/0.9/20190101000000"
		x  = "acme/app/1.0/20200101000000"
		y  = "core/lib/1.0/20200101000000"
		dx = 40 // directories of W's payload
	)
	app, lib := pkgstore.Ident{Origin: "acme", Name: "app"}, pkgstore.Ident{Origin: "core", Name: "lib"}
	if retention.DeleteWorker(app) == retention.DeleteWorker(lib) {
		t.Fatal("acme/app and core/lib should be on different deletion workers")
	}
	b := storetest.New(t)
	files := map[string]string{}
	for d := range dx {
		for f := range 150 {
			files[fmt.Sprintf("payload/d%02d/f%03d", d, f)] = "x"
		}
	}
	b.Add(storetest.Release{Ident: w, Files: files, ModTime: old})
	oldPkg(b, y)
	oldPkg(b, "core/lib/2.0/20210101000000")
	oldPkg(b, x, y)
	oldPkg(b, "acme/app/2.0/20210101000000", "core/lib/2.0/20210101000000")
	p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
	if n := len(p.Removals()); n != 3 {
		t.Fatalf("plan removes %d, want 3", n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var hidden []string
	var wDoomed atomic.Pointer[string]
	opts := retention.ApplyOptions{Settle: -1}
	retention.SetHook(&opts, func(stage string, id pkgstore.Ident, name string) {
		switch {
		case stage == "hidden":
			hidden = append(hidden, id.String())
		case stage == "doomed" && id.String() == w:
			full := filepath.Join(b.Root, "hab", "pkgs", filepath.FromSlash(name), "payload")
			wDoomed.Store(&full)
		}
	})
	// Cancel as soon as Y's VERSION directory is gone (deleted, then
	// pruned), or one of W's payload directories is: each is looked up by
	// name (Wine's directory listings lag behind the deletions, so that
	// counting the entries left found W half gone only once it was all
	// gone, and the run ended uncancelled in 3 of 5 tries).
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		for ctx.Err() == nil {
			if _, err := os.Lstat(b.PkgPath("core/lib/1.0")); errors.Is(err, fs.ErrNotExist) {
				cancel()
				return
			}
			if dir := wDoomed.Load(); dir != nil {
				for d := range dx {
					if _, err := os.Lstat(filepath.Join(*dir, fmt.Sprintf("d%02d", d))); err != nil {
						cancel()
						return
					}
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	res, err := p.Apply(ctx, storetest.Open(t, b.Root), opts)
	cancel()
	<-polled
	if got := strings.Join(hidden, " "); got != w+" "+x+" "+y {
		t.Fatalf("hidden in the order %s, want W, X, Y", got)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Apply: %v; want it cancelled while W was deleted", err)
	}
	n := countOutcomes(t, p, res)
	if o, _ := outcome(res, w); o.Status != retention.StatusRemoved {
		t.Errorf("W: %s %v %v (its deletion had started)", o.Status, o.Reasons, o.Err)
	}
	if o, _ := outcome(res, x); o.Status != retention.StatusKept || !hasReason(o.Reasons, codeCancelled, "") {
		t.Errorf("X, not started when cancelled: %s %v %v; want put back", o.Status, o.Reasons, o.Err)
	}
	checkOnDisk(t, b.Root, res)
	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range inv.Problems {
		t.Errorf("after the cancel (%v): %s", n, pr)
	}
}

package watch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/watch"
)

// TestRunRefusesNoStore: Run on no store, the
// zero Store or a closed one fails at once with an error wrapping
// pkgstore.ErrNoStore (watch.ErrNoStore is the same error), before it
// watches anything or calls OnStart; it never watches hab/pkgs relative to
// the working directory.
func TestRunRefusesNoStore(t *testing.T) {
	closed, err := pkgstore.Open(storetest.New(t).Root)
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	for name, st := range map[string]*pkgstore.Store{"nil": nil, "zero": {}, "closed": closed} {
		t.Run(name, func(t *testing.T) {
			started := false
			err := watch.Run(context.Background(), watch.Options{Store: st, Policy: retention.Policy{KeepLatest: 1},
				OnStart: func() { started = true }})
			if !errors.Is(err, pkgstore.ErrNoStore) || !errors.Is(err, watch.ErrNoStore) {
				t.Fatalf("Run: %v, want an error wrapping pkgstore.ErrNoStore", err)
			}
			if started {
				t.Error("OnStart was called")
			}
		})
	}
}

// TestRunRefusesNegativeOptions: a negative duration or
// count without a named "none" is refused before anything is watched, as
// is a LockTimeout or Settle below zero other than retention.NoLockWait
// and retention.NoSettle.
func TestRunRefusesNegativeOptions(t *testing.T) {
	b := storetest.New(t)
	st := storetest.Open(t, b.Root)
	pol := retention.Policy{KeepLatest: 1}
	for _, tc := range []struct {
		name string
		o    watch.Options
		want error
	}{
		{"delay", watch.Options{Delay: -time.Second}, watch.ErrInvalidOptions},
		{"unload grace", watch.Options{UnloadGrace: -time.Second}, watch.ErrInvalidOptions},
		{"install window", watch.Options{InstallWindow: -time.Second}, watch.ErrInvalidOptions},
		{"max watches", watch.Options{MaxWatches: -1}, watch.ErrInvalidOptions},
		{"lock timeout", watch.Options{LockTimeout: -time.Second}, retention.ErrInvalidOptions},
		{"settle", watch.Options{Settle: -time.Second}, retention.ErrInvalidOptions},
		{"scan workers", watch.Options{Scan: pkgstore.Options{Workers: -1}}, pkgstore.ErrInvalidOptions},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := false
			tc.o.Store, tc.o.Policy, tc.o.OnStart = st, pol, func() { started = true }
			if err := tc.o.Validate(); !errors.Is(err, tc.want) {
				t.Fatalf("Validate: %v, want %v", err, tc.want)
			}
			if err := watch.Run(context.Background(), tc.o); !errors.Is(err, tc.want) || started {
				t.Fatalf("Run: %v (started %v), want %v before watching", err, started, tc.want)
			}
		})
	}
	ok := watch.Options{Store: st, Policy: pol, LockTimeout: retention.NoLockWait, Settle: retention.NoSettle}
	if err := ok.Validate(); err != nil {
		t.Fatalf("the named nones: %v", err)
	}
}

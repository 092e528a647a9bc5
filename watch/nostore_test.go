package watch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/watch"
)

// TestRunRefusesNoStore (issue 34 items 1 and 7): Run on no store, the
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

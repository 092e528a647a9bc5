package binlink_test

import (
	"context"
	"testing"

	"github.com/hab-gc/hab-gc/binlink"
	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestNilArgumentsAreErrors: Repair and Apply without a store, a plan or
// a context return an error, never panic.
func TestNilArgumentsAreErrors(t *testing.T) {
	t.Parallel()
	st := storetest.Open(t, storetest.New(t).Root)
	var nilCtx context.Context
	for name, call := range map[string]func() error{
		"Repair with no store": func() error {
			_, _, err := binlink.Repair(context.Background(), nil, binlink.RepairOptions{})
			return err
		},
		"Repair with no context": func() error { _, _, err := binlink.Repair(nilCtx, st, binlink.RepairOptions{}); return err },
		"Apply with a nil plan":  func() error { _, err := binlink.Apply(context.Background(), st, nil); return err },
		"Apply with no context":  func() error { _, err := binlink.Apply(nilCtx, st, &binlink.Plan{FSRoot: st.FSRoot()}); return err },
		"dry Repair with no store": func() error {
			_, _, err := binlink.Repair(context.Background(), nil, binlink.RepairOptions{DryRun: true})
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			if err := call(); err == nil {
				t.Error("no error")
			}
		})
	}
}

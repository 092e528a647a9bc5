package retention_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestApplyPhases: Apply names each phase as it starts, with how many
// releases it handles, and counts the releases hidden and deleted, so that
// a display has no blank gap between the scan and the deletions.
func TestApplyPhases(t *testing.T) {
	b := base(t)
	var got []string
	opts := retention.ApplyOptions{Settle: time.Millisecond, OnPhase: func(e retention.PhaseEvent) {
		got = append(got, fmt.Sprintf("%s %d/%d", e.Phase, e.Done, e.Total))
	}}
	_, res := planAndApply(t, b.Root, retention.Policy{KeepLatest: 1}, opts)
	if res.Removed != 4 {
		t.Fatalf("removed %d, want 4", res.Removed)
	}
	want := []string{
		"locking 0/0", "rescanning 0/0",
		"hiding 0/4", "hiding 1/4", "hiding 2/4", "hiding 3/4", "hiding 4/4",
		"settling 0/0", "re-checking 0/0",
		"deleting 0/4", "deleting 1/4", "deleting 2/4", "deleting 3/4", "deleting 4/4",
	}
	if !slices.Equal(got, want) {
		t.Errorf("phases:\n%q\nwant\n%q", got, want)
	}
}

// TestPlanStoreAndApplyPhases: a caller's progress
// callback and Logger see every phase, from the scan to the deletions, by
// name and in order; the scan's total (the origin/name directories found)
// is known before its last event, and its progress ends at that total.
func TestPlanStoreAndApplyPhases(t *testing.T) {
	b := base(t)
	s := storetest.Open(t, b.Root)
	var events []retention.PhaseEvent
	var order []retention.Phase
	record := func(e retention.PhaseEvent) {
		events = append(events, e)
		if len(order) == 0 || order[len(order)-1] != e.Phase {
			order = append(order, e.Phase)
		}
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := retention.PlanStore(context.Background(), s, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, now,
		pkgstore.Options{Target: "x86_64-linux", OnPhase: record, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Apply(context.Background(), s, retention.ApplyOptions{Settle: time.Millisecond, OnPhase: record, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 4 {
		t.Fatalf("removed %d, want 4", res.Removed)
	}
	want := []retention.Phase{retention.PhaseScan, retention.PhasePlan, retention.PhaseLock, retention.PhaseRescan,
		retention.PhaseHide, retention.PhaseSettle, retention.PhaseRecheck, retention.PhaseDelete}
	if !slices.Equal(order, want) {
		t.Errorf("phases %q, want %q", order, want)
	}
	var scan []retention.PhaseEvent
	for _, e := range events {
		if e.Phase == retention.PhaseScan {
			scan = append(scan, e)
		}
	}
	// base holds core/glibc and core/redis: two origin/name directories.
	if len(scan) < 2 || scan[len(scan)-2].Total != 2 || scan[len(scan)-1] != (retention.PhaseEvent{Phase: retention.PhaseScan, Done: 2, Total: 2}) {
		t.Errorf("scan events %+v: want the total (2) known before the last, which is 2/2", scan)
	}
	at := 0
	for _, ph := range want {
		i := strings.Index(logs.String()[at:], "phase="+string(ph))
		if i < 0 {
			t.Errorf("log has no phase=%s after offset %d:\n%s", ph, at, logs.String())
			break
		}
		at += i
	}
}

package history

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// A run stopped by a signal (its context cancelled: hab-gc exits 7) is
// journalled as interrupted, as its exit status says, not as failed; a real error
// stays failed.
func TestRecordsInterrupted(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	res := &retention.Result{Outcomes: []retention.RemovalOutcome{
		{Ident: pkgstore.MustParseIdent("core/a/1/20200101000000"), Status: retention.StatusKept},
	}}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("applying: %w", context.Canceled), "interrupted"},
		{context.DeadlineExceeded, RunFailed}, // a time limit is not a signal
		{errors.New("disk on fire"), RunFailed},
		{nil, RunOK},
	} {
		t.Run(fmt.Sprint(tt.err), func(t *testing.T) {
			recs := records(now, Run{ID: "r", Job: JobRun, FSRoot: "/"}, nil, res, tt.err)
			total := recs[len(recs)-1]
			if total.Kind != KindRun || total.Outcome != tt.want {
				t.Fatalf("run record %+v, want outcome %s", total, tt.want)
			}
		})
	}
}

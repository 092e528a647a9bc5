package schedule_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestPressureTable: a [pressure] table parses into limits and prune
// parameters; bad values name the field.
func TestPressureTable(t *testing.T) {
	root := newEnv(t).store()
	for _, tt := range []struct {
		name, table, err string
		want             pressure.Limits
	}{
		{name: "both", table: "min_free = \"2GiB\"\nmax_free = \"10%\"\nkeep_latest = 1", want: pressure.Limits{MinFree: pressure.Size{Bytes: 2 << 30}, MaxFree: pressure.Size{Percent: 10}}},
		{name: "max defaults to min", table: "min_free = \"500MB\"\nkeep_latest = 2\nmin_age = \"0\"", want: pressure.Limits{MinFree: pressure.Size{Bytes: 500e6}, MaxFree: pressure.Size{Bytes: 500e6}}},
		{name: "no min", table: "keep_latest = 1", err: "field pressure.min_free"},
		{name: "bad size", table: "min_free = \"lots\"\nkeep_latest = 1", err: "field pressure.min_free"},
		{name: "max below min", table: "min_free = \"2GiB\"\nmax_free = \"1GiB\"\nkeep_latest = 1", err: "field pressure.max_free"},
		{name: "no policy", table: "min_free = \"2GiB\"", err: "field pressure.keep_latest"},
		{name: "bad min_age", table: "min_free = \"2GiB\"\nkeep_latest = 1\nmin_age = \"soon\"", err: "field pressure.min_age"},
		{name: "unknown key", table: "min_free = \"2GiB\"\nkeep_latest = 1\nschedule = \"@daily\"", err: "unknown field"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := fmt.Sprintf("fs_root = %q\n[pressure]\n%s\n", root, tt.table)
			d, err := schedule.ParseDefinition("d.toml", []byte(src))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil || d.Pressure == nil || d.Pressure.Limits != tt.want || len(d.Jobs) != 0 {
				t.Fatalf("got %+v, %v", d.Pressure, err)
			}
		})
	}
}

// TestPressureJobsOnePerStore: two definitions watching one store make one
// pressure job, owned by the oldest; RunDue runs it only below
// min_free, under the store's lock, and not when free space came back.
func TestPressureJobsOnePerStore(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	for name, created := range map[string]string{"a": "2026-01-02T00:00:00Z", "b": "2026-01-01T00:00:00Z"} {
		e.write(name, fmt.Sprintf("fs_root = %q\ncreated = %s\n[pressure]\nmin_free = \"1GiB\"\nkeep_latest = 1\n", root, created))
	}
	free := int64(0)
	runs := 0
	s := &schedule.Scheduler{Dir: e.dir, StatePath: e.state,
		Free: func(string) (pressure.Space, error) { return pressure.Space{Avail: free, Total: 100 << 30}, nil },
		Run: func(ctx context.Context, j schedule.Job, st *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
			runs++
			if _, err := st.Lock(ctx, 0); err == nil {
				t.Errorf("pressure job ran without the store's lock")
			}
			return schedule.RunResult{OK: true}, nil
		}}
	if _, err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	pj := s.PressureJobs()
	if len(pj) != 1 || pj[0].Owner != "b" || len(pj[0].Members) != 2 || pj[0].Type != schedule.Pressure {
		t.Fatalf("pressure jobs %+v", pj)
	}
	if outs := s.RunDue(context.Background()); len(outs) != 1 || outs[0].Status != schedule.Ran || runs != 1 {
		t.Fatalf("below min_free: outcomes %+v, runs %d", outs, runs)
	}
	free = 2 << 30
	if outs := s.RunDue(context.Background()); len(outs) != 0 || runs != 1 {
		t.Fatalf("above min_free: outcomes %+v, runs %d", outs, runs)
	}
}

package schedule_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

// A Scheduler without a state path is refused clearly
// (ErrNoStatePath) and writes nothing (it used to write "..lock" into the
// working directory, then fail renaming).
func TestZeroSchedulerRefused(t *testing.T) {
	dir := testtool.TempDir(t)
	t.Chdir(dir)
	var s schedule.Scheduler
	if _, err := s.Reload(); !errors.Is(err, schedule.ErrNoStatePath) {
		t.Errorf("Reload: err = %v, want ErrNoStatePath", err)
	}
	if _, err := s.Trigger(context.Background(), "k"); !errors.Is(err, schedule.ErrNoStatePath) {
		t.Errorf("Trigger: err = %v, want ErrNoStatePath", err)
	}
	if _, err := s.Status(); !errors.Is(err, schedule.ErrNoStatePath) {
		t.Errorf("Status: err = %v, want ErrNoStatePath", err)
	}
	s.RunDue(context.Background())
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Errorf("the working directory holds %v (%v), want nothing", ents, err)
	}
}

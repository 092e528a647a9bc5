package schedule_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/schedule"
)

// Taking a free store lock is no news: the scheduler
// says it is waiting for it at DEBUG, not at INFO on every run.
func TestLockWaitNotLoggedAtInfo(t *testing.T) {
	s, key, _ := triggerEnv(t, func(ctx context.Context) (schedule.RunResult, error) {
		return schedule.RunResult{OK: true}, nil
	})
	var buf bytes.Buffer
	s.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if _, err := s.Trigger(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "waiting for the store's lock") {
		t.Errorf("logged at INFO:\n%s", buf.String())
	}
}

package history_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/internal/storetest"
)

// A run without an ID is refused (ErrNoRunID) and writes
// nothing: its records could not be told from another run's.
func TestLogRefusesEmptyRunID(t *testing.T) {
	root := storetest.New(t).Root
	err := history.LogContext(context.Background(), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), history.Run{FSRoot: root}, nil, nil, nil)
	if !errors.Is(err, history.ErrNoRunID) {
		t.Fatalf("err = %v, want ErrNoRunID", err)
	}
	if _, err := os.Stat(filepath.Join(root, "hab", "sup")); !os.IsNotExist(err) {
		t.Errorf("history dir: %v, want none", err)
	}
}

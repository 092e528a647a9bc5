package history_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestLogRefusesEmptyRootAndNoPlan: Log with an empty
// FS root wrote ./hab/sup/default/hab-gc/history.jsonl under the working
// directory, and recorded outcome "ok" for a nil plan; both are refused
// and nothing is written.
func TestLogRefusesEmptyRootAndNoPlan(t *testing.T) {
	wd := testtool.TempDir(t) // one Wine can remove too
	t.Chdir(wd)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := history.LogContext(context.Background(), at, history.Run{ID: "x"}, nil, nil, errors.New("failed")); !errors.Is(err, pkgstore.ErrNoStore) {
		t.Errorf("empty FS root: %v, want ErrNoStore", err)
	}
	if err := history.LogContext(context.Background(), at, history.Run{ID: "x", FSRoot: wd}, nil, nil, nil); !errors.Is(err, retention.ErrNoPlan) {
		t.Errorf("no plan, no error: %v, want ErrNoPlan", err)
	}
	if _, err := os.Stat(filepath.Join(wd, "hab")); !os.IsNotExist(err) {
		t.Errorf("something was written under the working directory: %v", err)
	}
}

package docs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestEmptyFSRootRefused: every entry of the library that takes an FS root
// refuses an empty one with an error wrapping pkgstore.ErrNoStore, and
// nothing is written under the working directory.
func TestEmptyFSRootRefused(t *testing.T) {
	wd := testtool.TempDir(t)
	t.Chdir(wd)
	for name, call := range map[string]func() error{
		"history.ForFSRoot": func() error { _, err := history.ForFSRoot(""); return err },
		"history.Journal.AppendContext with no Dir": func() error {
			return history.Journal{}.AppendContext(context.Background(), []history.Record{{RunID: "x"}})
		},
		"schedule.DefaultStatePath": func() error { _, err := schedule.DefaultStatePath(""); return err },
		"schedule.Scheduler.NextRuns": func() error {
			_, _, err := (&schedule.Scheduler{}).NextRuns(schedule.Spec{}, "", schedule.Check, schedule.Params{}, 1)
			return err
		},
		"pkgstore.InferTarget": func() error { _, _, err := pkgstore.InferTarget(""); return err },
	} {
		if err := call(); !errors.Is(err, pkgstore.ErrNoStore) {
			t.Errorf("%s(\"\"): %v, want an error wrapping pkgstore.ErrNoStore", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(wd, "hab")); !os.IsNotExist(err) {
		t.Errorf("something was written under the working directory: %v", err)
	}
}

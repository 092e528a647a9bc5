package runroots_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/runroots"
)

// TestProcRootWithoutProcesses: a proc root that lists no process at all
// (missing, or an empty directory: proc not mounted there) shows nothing
// of what runs, which is blindness: Scan fails, wrapping ErrNoProc or
// ErrBlind, rather than report that no process uses any release.
func TestProcRootWithoutProcesses(t *testing.T) {
	t.Parallel()
	fsRoot := storetest.New(t).Pkg("core/app/1.0.0/20200101000000").Root
	cases := []struct {
		name string
		proc string
	}{
		{"missing", filepath.Join(testtool.TempDir(t), "proc")},
		{"empty", testtool.TempDir(t)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := scanFS(context.Background(), tc.proc, fsRoot)
			if !errors.Is(err, runroots.ErrNoProc) && !errors.Is(err, runroots.ErrBlind) {
				t.Fatalf("Scan of %s: %+v, %v; want an error wrapping ErrNoProc or ErrBlind", tc.proc, res, err)
			}
		})
	}
}

//go:build unix

package schedule_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// A state file below an FS root (the daemon's default,
// FS_ROOT/hab/sup/default/hab-gc/schedule-state.json, with
// StateBesideStores) is never written, nor its lock, through a symlink at any level
// below the FS root: with hab/sup, hab/sup/default or
// hab/sup/default/hab-gc a symlink to a directory outside, nothing is
// made there and Reload, which records the schedules in the state,
// fails naming the symlink.
func TestStateNotBelowSymlink(t *testing.T) {
	for _, link := range []string{"hab", "hab/sup", "hab/sup/default", "hab/sup/default/hab-gc"} {
		t.Run(link, func(t *testing.T) {
			e := newEnv(t)
			root := hostStore(t).Root
			outside := testtool.TempDir(t)
			// What was at the link's name (hab: the store) moves outside.
			at, moved := filepath.Join(root, link), filepath.Join(outside, "moved")
			os.MkdirAll(at, 0o755)
			if err := os.Rename(at, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, at); err != nil {
				t.Fatal(err)
			}
			before := walk(t, outside)
			e.write("p", fmt.Sprintf("fs_root = %q\n[prune]\nschedule = \"17 * * * *\"\nkeep_latest = 1\n", root))
			s := e.scheduler()
			s.StatePath, s.StateBesideStores = "", true
			var log bytes.Buffer
			s.Logger = slog.New(slog.NewTextHandler(&log, nil))
			_, rerr := s.Reload()
			e.clock.Add(2 * time.Hour)
			outs := s.RunDue(context.Background())
			if rerr == nil {
				t.Errorf("Reload: nil, want an error naming the symlink %s (outcomes %+v)", at, outs)
			}
			if after := walk(t, outside); !slices.Equal(before, after) {
				t.Errorf("written through the symlink %s:\nbefore %q\nafter  %q", at, before, after)
			}
			if !errors.Is(rerr, safeio.ErrSymlink) || !strings.Contains(rerr.Error(), at+" is a symlink") {
				t.Errorf("Reload: %v, want an error naming the symlink %s; log:\n%s", rerr, at, log.String())
			}
		})
	}
}

// walk lists the paths under dir.
func walk(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		out = append(out, p)
		return nil
	})
	return out
}

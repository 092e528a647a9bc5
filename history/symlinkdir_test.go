//go:build unix

package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// The journal of an FS root (Log, ForFSRoot) is never
// written through a symlink at any level below the FS root: with hab,
// hab/sup, hab/sup/default or hab/sup/default/hab-gc a symlink to a
// directory outside, the append fails naming the symlink and the outside
// directory stays empty. The FS root itself may be a symlink.
func TestAppendBelowSymlinkedDir(t *testing.T) {
	for _, link := range []string{"hab", "hab/sup", "hab/sup/default", "hab/sup/default/hab-gc"} {
		t.Run(link, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			at := filepath.Join(root, link)
			os.MkdirAll(filepath.Dir(at), 0o755)
			if err := os.Symlink(outside, at); err != nil {
				t.Fatal(err)
			}
			err := mustForFSRoot(t, root).Append([]Record{rec(1, "")})
			if !errors.Is(err, safeio.ErrSymlink) || !strings.Contains(err.Error(), at+" is a symlink") {
				t.Errorf("append: %v, want an error naming the symlink %s", err, at)
			}
			run := Run{ID: "r1", Job: JobRun, FSRoot: root}
			if err := LogContext(context.Background(), rec(1, "").Time, run, nil, nil, errors.New("refused")); !errors.Is(err, safeio.ErrSymlink) {
				t.Errorf("Log: %v, want ErrSymlink", err)
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 0 {
				t.Errorf("written through the symlink %s: %s holds %v", at, outside, ents)
			}
		})
	}
	t.Run("symlinked FS root", func(t *testing.T) {
		real := t.TempDir()
		root := filepath.Join(t.TempDir(), "root")
		os.Symlink(real, root)
		if err := mustForFSRoot(t, root).Append([]Record{rec(1, "")}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(real, "hab/sup/default/hab-gc", fileName)); err != nil {
			t.Fatal(err)
		}
	})
}

package schedule

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestRewatchSeesReplacedDir: the watch follows the schedules directory
// by its name: once the name leads to another directory (a deploy renamed
// the old one away and a new one into place), rewatch moves the watch
// there and says so, once. On Windows the identity os.SameFile compares
// of a FileInfo from os.Stat is read from its path when first compared:
// kept from before the swap, it was read as the new directory's, equal
// to it, and the new directory was never watched (TestServeFollowsReplacedDir
// failed 5 times in 8 under Wine).
func TestRewatchSeesReplacedDir(t *testing.T) {
	parent := testtool.TempDir(t)
	dir := filepath.Join(parent, "schedules")
	next := filepath.Join(parent, "next")
	for _, d := range []string{dir, next} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := (&Scheduler{Dir: dir}).watchDir()
	if w == nil {
		t.Fatal("no watch")
	}
	defer w.close()
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, dir); err != nil {
		t.Fatal(err)
	}
	if !w.rewatch() {
		t.Fatal("the replaced directory is not seen: the watch stays on the old one")
	}
	if w.rewatch() {
		t.Fatal("the same directory is seen as replaced again")
	}
}

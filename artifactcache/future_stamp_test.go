package artifactcache

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
)

// TestPlanFutureStamp: an archive modified in 2031
// (`touch -d`, a clock stepped back) was "written -40000h ago, less than
// the minimum age" on every run until 2031. A modification time ahead of
// the clock is judged by the inode change time (fileinfo.ChangedAt): with
// the clock 2 h ahead that is older than the hour, and the archive of a
// release not installed goes.
func TestPlanFutureStamp(t *testing.T) {
	root := cacheDir(t)
	const file = "core-redis-4.0.1-20200101000000-x86_64-linux.hart"
	future := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(root, Dir, file), future, future); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(root, Dir, file)); err == nil && fileinfo.ChangeTime(fi).Equal(future) {
		// Windows' stand-in for the change time is the creation time,
		// which setting the modification time leaves as it was; Wine
		// reports the modification time for both.
		t.Skipf("setting the modification time set the change time too (%s: Wine's creation time): this test needs a file system that keeps it (Linux's ctime, Windows' creation time)", runtime.GOOS)
	}
	c := openCache(t, root)
	files, err := c.Plan(context.Background(), status([]string{"core/redis/6.2.6/20220101000000"}), Options{KeepLatest: 1, MinAge: time.Hour, Now: time.Now().Add(2 * time.Hour), Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.File == file {
			if f.Action != Remove || f.Reasons[0].Code != CodeNotInstalled {
				t.Fatalf("%s: %s %v, want removed (not installed)", file, f.Action, f.Reasons)
			}
			return
		}
	}
	t.Fatalf("%s not in the plan", file)
}

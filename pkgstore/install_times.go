package pkgstore

import (
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
)

// maxInstallWalk bounds the entries of an install directory examined for
// its latest change; past it the install counts as active.
const maxInstallWalk = 20_000

// futureStamp describes the first of the files under an install directory
// whose times are ahead of the clock (fileinfo.ChangedAt), and how many there are.
type futureStamp struct {
	path     string // relative to the walk's root
	mod, chg time.Time
	n        int
}

func (f *futureStamp) add(p string, fi fs.FileInfo) {
	if f.n++; f.n == 1 {
		f.path, f.mod, f.chg = p, fi.ModTime(), fileinfo.ChangeTime(fi)
	}
}

func futureProblem(path string, mod, chg, now time.Time, others int) Problem {
	msg := fmt.Sprintf("modified %s, ahead of the clock (%s)", mod.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	switch {
	case chg.IsZero():
		msg += ": the platform has no inode change time, so it counts as changed now"
	case chg.After(now.Add(fileinfo.FutureSlack)):
		msg = fmt.Sprintf("inode change time %s is ahead of the clock (%s): the clock was set back, and it counts as changing until the clock passes it (modified %s)",
			chg.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), mod.UTC().Format(time.RFC3339))
	default:
		msg += fmt.Sprintf(": judged by its inode change time, %s, which no program can set, so it holds removals no longer than the install window from then", chg.UTC().Format(time.RFC3339))
	}
	if others > 0 {
		msg += fmt.Sprintf(" (and %d other file(s) under the same install directory)", others)
	}
	return Problem{Path: path, Kind: ProblemFutureTime, Message: msg}
}

// latestChange returns the latest change under r (fileinfo.ChangedAt), false
// when it gave up, and the first time ahead of the clock.
func latestChange(r *os.Root, now time.Time) (time.Time, bool, futureStamp) {
	var t time.Time
	var future futureStamp
	n := 0
	complete := true
	fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			complete = false
			return nil
		}
		if n++; n > maxInstallWalk {
			complete = false
			return fs.SkipAll
		}
		if fi, err := d.Info(); err == nil {
			c, ahead := fileinfo.ChangedAt(fi, now)
			if ahead && p != "." { // the directory itself: reported by its caller
				future.add(p, fi)
			}
			if c.After(t) {
				t = c
			}
		}
		return nil
	})
	return t, complete, future
}

// installDirTimes returns an install directory's latest change, its
// mtime, and the time a check's notice judges (zero: not examinable).
func (sc *scanner) installDirTimes(vroot *os.Root, entry, path string) (changed, modified, noticeAt time.Time) {
	now := sc.opts.Now
	fi, err := vroot.Lstat(entry)
	if err != nil {
		return changed, modified, noticeAt
	}
	var ahead bool
	changed, ahead = fileinfo.ChangedAt(fi, now)
	modified, noticeAt = fi.ModTime(), fi.ModTime()
	if !now.IsZero() && modified.After(now) {
		noticeAt = changed
	}
	if ahead {
		sc.problems.add(futureProblem(path, fi.ModTime(), fileinfo.ChangeTime(fi), now, 0))
	}
	return changed, modified, noticeAt
}

package fileinfo

import (
	"io/fs"
	"time"
)

// LastChange is the later of a file's modification and inode change
// times: what an install or a download renamed into place last did to it
// (rename(2) sets the change time, which no archive extraction can set
// back). Where the platform has no change time, the modification time.
func LastChange(fi fs.FileInfo) time.Time {
	t := fi.ModTime()
	if c := ChangeTime(fi); c.After(t) {
		t = c
	}
	return t
}

// FutureSlack is how far ahead of the clock a time may be before it is
// reported (pkgstore.ProblemFutureTime): files written during a long scan
// are stamped after its clock reading. It is never waited for: a time
// ahead of the clock is always judged by the change time.
const FutureSlack = 5 * time.Minute

// ChangedAt is LastChange judged against the clock now: a modification
// time ahead of it (set by hand, `touch -d 2031-01-01`; kept from an
// archive unpacked with future times; left by a clock stepped back) is
// no change to come, so the inode change time is taken instead, which no
// program can set (setting the modification time sets it to the present).
// future reports a time more than a few minutes ahead of now, the
// modification time or the change time (a clock set back past it: then
// the file counts as changing until the clock passes it). Where the
// platform has no change time, a modification time ahead of now counts
// as now. With a zero now, LastChange.
func ChangedAt(fi fs.FileInfo, now time.Time) (t time.Time, future bool) {
	if now.IsZero() {
		return LastChange(fi), false
	}
	m, c := fi.ModTime(), ChangeTime(fi)
	ahead := now.Add(FutureSlack)
	future = m.After(ahead) || c.After(ahead)
	if !m.After(now) {
		return LastChange(fi), future
	}
	if c.IsZero() {
		return now, future
	}
	return c, future
}

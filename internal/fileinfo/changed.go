package fileinfo

import (
	"io/fs"
	"time"
)

// LastChange is the later of the modification and change times: rename(2)
// sets the change time, which no archive extraction can set back.
func LastChange(fi fs.FileInfo) time.Time {
	t := fi.ModTime()
	if c := ChangeTime(fi); c.After(t) {
		t = c
	}
	return t
}

// FutureSlack: files written during a long scan are stamped after its
// clock reading; only beyond it is a time reported.
const FutureSlack = 5 * time.Minute

// ChangedAt is LastChange, but an mtime ahead of now (`touch -d`, an
// archive's, a clock stepped back) gives way to the change time, which no
// program can set (now where there is none; a zero now is LastChange).
// future: either is beyond FutureSlack.
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

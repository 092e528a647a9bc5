package schedule

import (
	"os"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
)

// fileMark is what a stat of the state file shows of it: a file replaced,
// written or deleted by another has another mark.
type fileMark struct {
	ok        bool
	dev, ino  uint64
	size      int64
	modTimeNs int64
}

// markOf returns the state file's mark (not ok when it cannot be stat'ed).
func markOf(path string) fileMark {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileMark{}
	}
	m := fileMark{ok: true, size: fi.Size(), modTimeNs: fi.ModTime().UnixNano()}
	m.dev, m.ino = fileinfo.ID(fi)
	return m
}

// stateMark is what a stat of the state's two files shows of them.
type stateMark struct{ base, journal fileMark }

func marksOf(path string) stateMark { return stateMark{markOf(path), markOf(journalPath(path))} }

// markState records the state's files as they are now: this scheduler
// just wrote them.
func (s *Scheduler) markState() {
	m := marksOf(s.StatePath)
	s.umu.Lock()
	s.stateSeen = m
	s.umu.Unlock()
}

// stateChanged reports whether the state's files are not as this
// scheduler last wrote or read them (two lstats). Read-only schedulers never rebuild
// it, so for them it never has.
func (s *Scheduler) stateChanged() bool {
	if s.ReadOnly || s.StatePath == "" {
		return false
	}
	m := marksOf(s.StatePath)
	s.umu.Lock()
	defer s.umu.Unlock()
	return !s.stateSeen.base.ok || m != s.stateSeen
}

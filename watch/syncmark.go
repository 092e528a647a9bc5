package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// syncMarks is the sync's barrier: a directory of the watcher's own
// (0700, made in os.TempDir at the first sync, removed by close), watched
// on the same inotify watcher as the store, in which each sync creates a
// file of a name never used before. Its IN_CREATE is queued after every
// event the kernel queued before it, in every directory of that watcher
// (one queue per inotify instance), and no one else makes it: an event
// any other process can make (an attribute change of the lock file: a
// touch, Lock setting a lock file left 0644 to 0600) would be taken for
// the mark when made before it, and the sync would stop short of what
// came between.
type syncMarks struct {
	dir string            // "" until made
	fsw *fsnotify.Watcher // the watcher dir is watched on
	n   int               // the last mark's number
}

// syncMark creates the next mark and returns its path.
func (w *watcher) syncMark() (string, error) {
	m := &w.marks
	if m.dir == "" {
		dir, err := os.MkdirTemp("", "hab-gc-watch-")
		if err != nil {
			return "", fmt.Errorf("making the sync's directory: %w", err)
		}
		m.dir, m.fsw = dir, nil
	}
	for _, d := range []string{w.store, w.specsDir} {
		if rel, err := filepath.Rel(d, m.dir); err != nil || !strings.HasPrefix(rel, "..") {
			return "", errors.New("the sync's directory " + m.dir + " is not outside " + d)
		}
	}
	if m.fsw != w.fsw {
		if err := w.fsw.Add(m.dir); err != nil {
			w.dropMarks()
			return "", fmt.Errorf("watching the sync's directory: %w", err)
		}
		m.fsw = w.fsw
	}
	m.n++
	name := filepath.Join(m.dir, strconv.Itoa(m.n))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		w.dropMarks() // removed, or not ours: a new one next time
		return "", fmt.Errorf("marking the inotify queue: %w", err)
	}
	return name, f.Close()
}

// dropMarks removes the sync's directory; the next sync makes another.
func (w *watcher) dropMarks() {
	if w.marks.dir != "" {
		os.RemoveAll(w.marks.dir)
	}
	w.marks = syncMarks{}
}

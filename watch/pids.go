package watch

import (
	"os"
	"path/filepath"
	"time"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

const svcDir = "hab/svc"

// pidStamp tells one PID file from the next: the Supervisor writes one at
// every start (components/sup/src/manager/service/supervisor.rs
// create_pidfile).
type pidStamp struct {
	ino          uint64
	mtime, ctime time.Time
}

// watchSvc watches hab/svc (or its nearest existing parent) and each
// service directory in it.
func (w *watcher) watchSvc() {
	root := w.o.Store.FSRoot()
	for dir := w.svcRoot; ; dir = filepath.Dir(dir) {
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
			w.add(dir)
			break
		}
		if dir == root || dir == filepath.Dir(dir) {
			return
		}
	}
	entries, _ := safeio.ReadDir(w.svcRoot)
	for _, e := range entries {
		if e.IsDir() {
			w.add(filepath.Join(w.svcRoot, e.Name()))
		}
	}
}

// readPIDs: with changes, a new or replaced PID file is a start, which the
// Supervisor purges at (add_service_rsw_mlw_rhw_msr).
func (w *watcher) readPIDs(changes bool) {
	now := map[string]pidStamp{}
	entries, _ := safeio.ReadDir(w.svcRoot)
	for _, e := range entries {
		if sp, ok := w.specs[e.Name()]; !e.IsDir() || !ok || sp.down {
			continue // not seen until its spec is: it still starts a purge
		}
		fi, err := os.Lstat(filepath.Join(w.svcRoot, e.Name(), "PID"))
		if err != nil {
			continue
		}
		_, ino := fileinfo.ID(fi)
		now[e.Name()] = pidStamp{ino: ino, mtime: fi.ModTime(), ctime: fileinfo.ChangeTime(fi)}
	}
	old := w.pids
	w.pids = now
	if !changes {
		return
	}
	for name, st := range now {
		if prev, ok := old[name]; !ok || prev != st {
			w.mark(w.specs[name].id.Package(), TriggerLoad)
		}
	}
}

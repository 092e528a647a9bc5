package watch

import (
	"os"
	"path/filepath"
	"time"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

// svcDir is where the Supervisor keeps each service's files, NAME/PID
// among them, under the FS root.
const svcDir = "hab/svc"

// pidStamp tells one PID file from the next: the Supervisor writes a new
// one (a temp file renamed over it) at every start of the service
// (habitat-sh/habitat components/sup/src/manager/service/supervisor.rs
// create_pidfile) and removes it at stop (cleanup_pidfile).
type pidStamp struct {
	ino          uint64
	mtime, ctime time.Time
}

// watchSvc watches FS_ROOT/hab/svc (or, while it does not exist, its
// nearest existing parent below the FS root) and each service directory
// in it, where the PID files are renamed into place.
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

// readPIDs reads the services' PID files; with changes, each new or
// replaced one is the Supervisor starting its service, which it purges
// as it does (add_service_rsw_mlw_rhw_msr calls
// maybe_uninstall_old_packages): the service's package is marked
// (TriggerLoad), unless its spec says it is down.
func (w *watcher) readPIDs(changes bool) {
	now := map[string]pidStamp{}
	entries, _ := safeio.ReadDir(w.svcRoot)
	for _, e := range entries {
		if sp, ok := w.specs[e.Name()]; !e.IsDir() || !ok || sp.down {
			// Not seen until its spec is read: a PID file read before
			// its spec's event (watch busy) still starts a purge.
			continue
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

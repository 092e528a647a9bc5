package storetest

import (
	"os"
	"path/filepath"
	"strconv"
)

// The files the Supervisor leaves for a service it starts, read from
// Habitat's source (habitat-sh/habitat):
//
//   - components/core/src/fs.rs svc_path: FS_ROOT/hab/svc/NAME, made by
//     SvcDir::create (create_svc_root 0755; create_all_sup_owned_dirs:
//     hooks, logs 0755; create_all_svc_owned_dirs: config, config_install,
//     data, files, var, static, SVC_DIR_PERMISSIONS 0770) from
//     Service::create_svc_path, which add_service_rsw_mlw_rhw_msr
//     (components/sup/src/manager.rs) calls before the service starts.
//   - components/core/src/fs.rs svc_pid_file: svc_path/PID, written by
//     components/sup/src/manager/service/supervisor.rs create_pidfile
//     once the launcher spawned the run hook: an AtomicWriter
//     (components/core/src/fs.rs) makes a tempfile::NamedTempFile
//     ".tmpXXXXXX" in svc_path, writes the PID in decimal with no
//     newline, sets 0644, syncs it and renames it to PID. cleanup_pidfile
//     removes PID when the service stops.

// SvcDir makes FS_ROOT/hab/svc/NAME as SvcDir::create does and returns
// its path.
func SvcDir(root, name string) (string, error) {
	dir := filepath.Join(root, "hab", "svc", name)
	for _, d := range []struct {
		sub  string
		mode os.FileMode
	}{{"", 0o755}, {"hooks", 0o755}, {"logs", 0o755}, {"config", 0o770}, {"config_install", 0o770},
		{"data", 0o770}, {"files", 0o770}, {"var", 0o770}, {"static", 0o770}} {
		p := filepath.Join(dir, d.sub)
		if err := os.MkdirAll(p, d.mode); err != nil {
			return "", err
		}
		if err := os.Chmod(p, d.mode); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// WritePIDFile writes FS_ROOT/hab/svc/NAME/PID holding pid as
// create_pidfile does (making the service directory first), and returns
// its path.
func WritePIDFile(root, name string, pid int) (string, error) {
	dir, err := SvcDir(root, name)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, ".tmp")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(strconv.Itoa(pid))
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	pidFile := filepath.Join(dir, "PID")
	if err == nil {
		err = os.Rename(f.Name(), pidFile)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return pidFile, nil
}

// RemovePIDFile removes FS_ROOT/hab/svc/NAME/PID as cleanup_pidfile does
// when the service stops.
func RemovePIDFile(root, name string) error {
	return os.Remove(filepath.Join(root, "hab", "svc", name, "PID"))
}

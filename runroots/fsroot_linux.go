package runroots

import (
	"bytes"
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// habFSRoot is a process's Habitat FS root as its environment gives it.
type habFSRoot struct {
	path  string // FS_ROOT's value, else "/"
	set   bool   // FS_ROOT is set (an empty one too)
	known bool   // environ could be read
}

// envFSRoot reads FS_ROOT from a process's environ (NUL separated): the
// first FS_ROOT=, as getenv (Rust's env::var) finds it.
func envFSRoot(environ []byte, err error) habFSRoot {
	if err != nil {
		return habFSRoot{}
	}
	for kv := range bytes.SplitSeq(environ, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("FS_ROOT=")); ok {
			return habFSRoot{path: string(v), set: true, known: true}
		}
	}
	return habFSRoot{path: "/", known: true}
}

// installsHere reports whether a Habitat install running as the process
// whose /proc directory is dir, with FS root fs, installs into this store.
// Habitat's store is FS_ROOT_PATH/hab/pkgs, FS_ROOT_PATH the FS_ROOT
// variable of its environment, else "/" (components/core/src/fs.rs
// FS_ROOT_PATH); an empty or relative FS_ROOT is a path from its working
// directory. That path is resolved as the process resolves it (under
// /proc/PID/root or /proc/PID/cwd, another mount namespace's too) and is
// this store when it is the same directory (device and inode), whatever
// the path to it. Only a store that is certainly another holds nothing
// here: no directory at that path (ENOENT, ENOTDIR), or another directory.
// An unreadable environment, or a stat that fails otherwise, counts as
// this store: the install holds removals.
func (r *reader) installsHere(dir string, fs habFSRoot) bool {
	if !fs.known {
		return true
	}
	p := dir + "/root" + fs.path + "/" + pkgstore.StoreDir
	if !strings.HasPrefix(fs.path, "/") {
		p = dir + "/cwd/" + fs.path + "/" + pkgstore.StoreDir
	}
	ours, err := r.storeStat()
	if err != nil {
		return true
	}
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR)
	}
	return st.Dev == ours.Dev && st.Ino == ours.Ino
}

// storeStat is the store directory's stat, taken once a reader.
func (r *reader) storeStat() (*unix.Stat_t, error) {
	if r.store == nil && r.storeErr == nil {
		var st unix.Stat_t
		if err := unix.Stat(r.m.storeDir, &st); err != nil {
			r.storeErr = &os.PathError{Op: "stat", Path: r.m.storeDir, Err: err}
		} else {
			r.store = &st
		}
	}
	return r.store, r.storeErr
}

package runroots

import (
	"bytes"
	"errors"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// habFSRoot is a process's FS_ROOT ("/" when unset).
type habFSRoot struct {
	path  string
	known bool // environ could be read
}

// envFSRoot reads the first FS_ROOT=, as Rust's env::var does.
func envFSRoot(environ []byte, err error) habFSRoot {
	if err != nil {
		return habFSRoot{}
	}
	for kv := range bytes.SplitSeq(environ, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("FS_ROOT=")); ok {
			return habFSRoot{path: string(v), known: true}
		}
	}
	return habFSRoot{path: "/", known: true}
}

// installsHere reports whether the install the process at dir runs, with
// FS root fs (core/src/fs.rs FS_ROOT_PATH; relative from its working
// directory), may install into this store: only a store that is
// certainly another, resolved as the process does, is not.
func (r *reader) installsHere(dir string, fs habFSRoot) bool {
	if !fs.known || r.store == nil {
		return true
	}
	p := dir + "/root" + fs.path + "/" + pkgstore.StoreDir
	if !strings.HasPrefix(fs.path, "/") {
		p = dir + "/cwd/" + fs.path + "/" + pkgstore.StoreDir
	}
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR)
	}
	return st.Dev == r.store.Dev && st.Ino == r.store.Ino
}

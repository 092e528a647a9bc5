package runroots

import (
	"bytes"
	"errors"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"github.com/hab-gc/hab-gc/pkgstore"
	"golang.org/x/sys/unix"
)

type procState struct {
	uses   []Use
	held   []Held // files of installs in progress it holds open
	denied bool
	// mapsDenied: maps itself could not be read (permission)
	mapsDenied bool
	vanished   bool
	failed     string
	gone       bool // an ENOENT/ESRCH was met: check whether the process exited
	pid        int
	comm       string // its command name, read for one denied
}

// note records a read error: permission, a raced exit, or another failure.
func (st *procState) note(what string, err error) {
	switch {
	case err == nil:
	case errors.Is(err, os.ErrPermission):
		st.denied = true
	case errors.Is(err, os.ErrNotExist), errors.Is(err, syscall.ESRCH):
		st.gone = true
	default:
		if st.failed == "" {
			st.failed = what + ": " + err.Error()
		}
	}
}

// procRead is one process being read: what it has been found to use and
// hold (st), and what the steps of reading it share.
type procRead struct {
	r    *reader
	pid  int
	dir  string // its directory under the proc root
	root string // its root directory ("" when that cannot be read)
	st   procState
	seen map[[2]string]bool // the uses recorded, by ident and kind
	held map[string]bool    // the files of installs recorded as held
}

// process reads what one process uses of the store, and holds of
// installs in progress: its root, executable, working directory and open
// files, its mappings, its environment and command line.
func (r *reader) process(pid int) procState {
	pr := procRead{r: r, pid: pid, dir: r.proc + "/" + strconv.Itoa(pid), seen: map[[2]string]bool{}, held: map[string]bool{}}
	pr.st.pid = pid
	dfd, err := unix.Open(pr.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		pr.st.note("open", err)
		if pr.st.gone {
			pr.st.vanished = true
		}
		return pr.st
	}
	defer unix.Close(dfd)
	root, err := r.readlinkat(dfd, "root")
	pr.st.note("root", err)
	pr.root = root
	if err == nil {
		if m := r.match(root); m.ok {
			pr.record(KindRoot, m.id, m.file, m.hidden)
		}
	}
	pr.readLinks(dfd)
	pr.readMaps(dfd)
	pr.readStrings(dfd)
	pr.nameUses(dfd)
	if pr.st.denied {
		comm, _ := r.readAt(dfd, "comm") // readable by anyone
		pr.st.comm = strings.TrimSpace(string(comm))
	}
	if pr.st.gone {
		if _, err := os.Stat(pr.dir); err != nil {
			pr.st.vanished = true
		}
	}
	return pr.st
}

// record notes that the process uses release id (once by kind).
func (pr *procRead) record(kind Kind, id pkgstore.Ident, file string, hidden bool) {
	key := [2]string{id.String(), string(kind)}
	if !pr.seen[key] {
		pr.seen[key] = true
		pr.st.uses = append(pr.st.uses, Use{PID: pr.pid, Ident: id, Kind: kind, File: file, Hidden: hidden})
	}
}

// try records the use a path (p, matched as the reader sees it: m)
// stands for, else the one it stands for joined under the process's
// root directory, as the process resolves it (another mount
// namespace), or by the identity of the file itself: the one the proc
// link named link (exe, cwd, fd/N) leads to, or with inode ino (maps).
func (pr *procRead) try(kind Kind, p string, m matched, link string, ino uint64) {
	r, root, dir := pr.r, pr.root, pr.dir
	if m.ok {
		pr.record(kind, m.id, m.file, m.hidden)
		return
	}
	if root != "" && root != "/" {
		if m := r.match(root + p); m.ok {
			pr.record(kind, m.id, m.file, m.hidden)
			return
		}
	}
	if !m.cand {
		return
	}
	c := path.Clean(strings.TrimSuffix(p, " (deleted)"))
	if id, file, hidden, ok := r.ix.lookup(dir+"/root", c); ok {
		pr.record(kind, id, file, hidden)
		return
	}
	same := func(st *unix.Stat_t) bool { return ino != 0 && st.Ino == ino }
	if link != "" {
		same = func(st *unix.Stat_t) bool {
			var t unix.Stat_t
			return unix.Stat(dir+"/"+link, &t) == nil && t.Dev == st.Dev && t.Ino == st.Ino
		}
	}
	if id, file, hidden, ok := r.ix.sameFile(r.m.storeDir, c, same); ok {
		pr.record(kind, id, file, hidden)
	}
}

// add takes the target p of the proc link named link: a file of an
// install in progress held (by a descriptor or as working directory),
// and the use it stands for (try).
func (pr *procRead) add(kind Kind, p, link string) {
	if !strings.HasPrefix(p, "/") {
		return
	}
	if kind == KindFD || kind == KindCwd {
		if h, ok := pr.r.m.held(p); ok && !pr.held[h] {
			pr.held[h] = true
			pr.st.held = append(pr.st.held, Held{PID: pr.pid, Kind: kind, Path: h})
		}
	}
	pr.try(kind, p, pr.r.match(p), link, 0)
}

// readLinks reads the links exe, cwd and fd/N.
func (pr *procRead) readLinks(dfd int) {
	for _, l := range [...]struct {
		name string
		kind Kind
	}{{"exe", KindExe}, {"cwd", KindCwd}} {
		t, err := pr.r.readlinkat(dfd, l.name)
		pr.st.note(l.name, err)
		if err == nil {
			pr.add(l.kind, t, l.name)
		}
	}
	if err := pr.r.fds(dfd, func(name, t string) { pr.add(KindFD, t, "fd/"+name) }); err != nil {
		pr.st.note("fd", err)
	}
}

// readMaps reads the files the process has mapped.
func (pr *procRead) readMaps(dfd int) {
	r, root := pr.r, pr.root
	if b, err := r.readAt(dfd, "maps"); err != nil {
		pr.st.note("maps", err)
		pr.st.mapsDenied = errors.Is(err, os.ErrPermission)
	} else if r.m.mayHold(b) || r.ix != nil && len(r.ix.names) > 0 {
		// Every line: a file mapped through a bind mount of the store
		// shows under any path.
		var prev []byte
		for line := range bytes.Lines(b) {
			if p, ino, ok := mapsPath(line); ok {
				if bytes.Equal(p, prev) {
					continue // the next segment of the same file
				}
				prev = p
				if m := r.matchBytes(p); m.ok || m.cand || root != "" && root != "/" {
					// By the inode column when by the file: the device
					// column is the superblock's, which is not stat's on
					// every file system (btrfs subvolumes, overlayfs).
					pr.try(KindMap, string(p), m, "", ino)
				}
			}
		}
	}
}

// readStrings reads the store paths named in the environment and on the
// command line, and whether the command line is an install's.
func (pr *procRead) readStrings(dfd int) {
	r, root, dir := pr.r, pr.root, pr.dir
	var fsRoot habFSRoot // from environ, for installsHere
	for _, f := range [...]struct {
		name string
		kind Kind
	}{{"environ", KindEnv}, {"cmdline", KindCmdline}} {
		b, err := r.readAt(dfd, f.name)
		if f.kind == KindEnv {
			fsRoot = envFSRoot(b, err) // before cmdline's read reuses b
		}
		if err != nil {
			pr.st.note(f.name, err)
			continue
		}
		if f.kind == KindCmdline {
			if cmd, ok := habInstallCommand(b); ok && r.installsHere(dir, fsRoot) {
				pr.st.held = append(pr.st.held, Held{PID: pr.pid, Kind: KindCmdline, Command: cmd})
			}
		}
		if !r.m.mayHold(b) {
			continue
		}
		for _, s := range bytes.Split(b, []byte{0}) {
			for _, p := range storePaths(string(s), r.viewPrefixes(root)) {
				q := p
				if root != "" && root != "/" {
					q = root + p
				}
				m := r.match(q)
				id, hidden, ok := m.id, m.hidden, m.ok
				if !ok && r.ix != nil && r.ix.candidate(path.Clean(p)) {
					id, _, hidden, ok = r.ix.lookup(dir+"/root", path.Clean(p))
				}
				if !ok {
					continue
				}
				file := ""
				if f.kind == KindEnv {
					file, _, _ = strings.Cut(string(s), "=")
				}
				pr.record(f.kind, id, file, hidden)
			}
		}
	}
}

// nameUses gives what was found the process's command name (comm).
func (pr *procRead) nameUses(dfd int) {
	st := &pr.st
	if len(st.uses) > 0 || len(st.held) > 0 {
		comm, err := pr.r.readAt(dfd, "comm")
		st.note("comm", err)
		c := strings.TrimSpace(string(comm))
		if c == "" {
			c = "?"
		}
		for i := range st.uses {
			st.uses[i].Comm = c
		}
		for i := range st.held {
			st.held[i].Comm = c
		}
	}
}

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
	uses       []procUse
	held       []procHeld
	denied     bool
	mapsDenied bool
	vanished   bool
	failed     string
	gone       bool // an ENOENT/ESRCH was met: check whether it exited
	pid        int
	comm       string // read for one denied
}

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

// procRead is one process being read.
type procRead struct {
	r    *reader
	pid  int
	dir  string // under the proc root
	root string // its root directory ("" when unreadable)
	st   procState
	seen map[[2]string]bool // by ident and kind
	held map[string]bool
}

// process reads one process.
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
			pr.record(kindRoot, m.id, m.file, m.hidden)
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

func (pr *procRead) record(kind useKind, id pkgstore.Ident, file string, hidden bool) {
	key := [2]string{id.String(), string(kind)}
	if !pr.seen[key] {
		pr.seen[key] = true
		pr.st.uses = append(pr.st.uses, procUse{PID: pr.pid, Ident: id, Kind: kind, File: file, Hidden: hidden})
	}
}

// try records the release p lies in: as the reader sees it (m), under
// the process's root (another mount namespace), by its release
// directory's identity, or by the file's own (the proc link named link
// leads to, or inode ino).
func (pr *procRead) try(kind useKind, p string, m matched, link string, ino uint64) {
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

// add takes the target p of the proc link named link.
func (pr *procRead) add(kind useKind, p, link string) {
	if !strings.HasPrefix(p, "/") {
		return
	}
	if kind == kindFD || kind == kindCwd {
		if h, ok := pr.r.m.held(p); ok && !pr.held[h] {
			pr.held[h] = true
			pr.st.held = append(pr.st.held, procHeld{PID: pr.pid, Kind: kind, Path: h})
		}
	}
	pr.try(kind, p, pr.r.match(p), link, 0)
}

func (pr *procRead) readLinks(dfd int) {
	for _, l := range [...]struct {
		name string
		kind useKind
	}{{"exe", kindExe}, {"cwd", kindCwd}} {
		t, err := pr.r.readlinkat(dfd, l.name)
		pr.st.note(l.name, err)
		if err == nil {
			pr.add(l.kind, t, l.name)
		}
	}
	if err := pr.r.fds(dfd, func(name, t string) { pr.add(kindFD, t, "fd/"+name) }); err != nil {
		pr.st.note("fd", err)
	}
}

func (pr *procRead) readMaps(dfd int) {
	r, root := pr.r, pr.root
	if b, err := r.readAt(dfd, "maps"); err != nil {
		pr.st.note("maps", err)
		pr.st.mapsDenied = errors.Is(err, os.ErrPermission)
	} else if r.m.mayHold(b) || r.ix != nil && len(r.ix.names) > 0 {
		// Every line: a bind mount of the store shows under any path.
		var prev []byte
		for line := range bytes.Lines(b) {
			if p, ino, ok := mapsPath(line); ok {
				if bytes.Equal(p, prev) {
					continue // the next segment of the same file
				}
				prev = p
				if m := r.matchBytes(p); m.ok || m.cand || root != "" && root != "/" {
					// The device column is the superblock's, not stat's
					// on btrfs subvolumes and overlayfs: the inode only.
					pr.try(kindMap, string(p), m, "", ino)
				}
			}
		}
	}
}

func (pr *procRead) readStrings(dfd int) {
	r, root, dir := pr.r, pr.root, pr.dir
	var fsRoot habFSRoot
	for _, f := range [...]struct {
		name string
		kind useKind
	}{{"environ", kindEnv}, {"cmdline", kindCmdline}} {
		b, err := r.readAt(dfd, f.name)
		if f.kind == kindEnv {
			fsRoot = envFSRoot(b, err) // before cmdline's read reuses b
		}
		if err != nil {
			pr.st.note(f.name, err)
			continue
		}
		if f.kind == kindCmdline {
			if cmd, ok := habInstallCommand(b); ok && r.installsHere(dir, fsRoot) {
				pr.st.held = append(pr.st.held, procHeld{PID: pr.pid, Kind: kindCmdline, Command: cmd})
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
				if f.kind == kindEnv {
					file, _, _ = strings.Cut(string(s), "=")
				}
				pr.record(f.kind, id, file, hidden)
			}
		}
	}
}

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

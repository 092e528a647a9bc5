package runroots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// scanStore is Scan: the store's release directories are read from disk.
func scanStore(ctx context.Context, procRoot, fsRoot string) (*Result, error) {
	return scan(ctx, procRoot, fsRoot, identityFromDisk(fsRoot))
}

// scanInventory is ScanInventory: they come from the inventory.
func scanInventory(ctx context.Context, procRoot string, inv *pkgstore.Inventory) (*Result, error) {
	return scan(ctx, procRoot, inv.FSRoot, identityOf(inv))
}

func scan(ctx context.Context, procRoot, fsRoot string, ix *identity) (*Result, error) {
	if procRoot == "" {
		procRoot = DefaultProcRoot
	}
	m, err := newMatcher(fsRoot)
	if err != nil {
		return nil, err
	}
	d, err := os.Open(procRoot)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	var pids []int
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	res := &Result{Processes: len(pids), NotRoot: os.Geteuid() != 0, HidePID: hidePID(procRoot)}
	res.NoPtrace = !res.NotRoot && !hasCap(unix.CAP_SYS_PTRACE)
	res.ChildPIDNamespace = inChildPIDNamespace()
	workers := min(runtime.GOMAXPROCS(0), max(len(pids), 1))
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := reader{m: m, ix: ix, proc: procRoot}
			for pid := range next {
				st := r.process(pid)
				mu.Lock()
				res.Uses = append(res.Uses, st.uses...)
				res.Held = append(res.Held, st.held...)
				switch {
				case st.vanished:
					res.Vanished++
				case st.denied:
					res.Denied++
					if st.mapsDenied {
						res.MapsDenied++
					}
				case st.failed != "":
					if res.Failed == 0 {
						res.FailedExample = st.failed
					}
					res.Failed++
				default:
					res.Inspected++
				}
				mu.Unlock()
			}
		}()
	}
	for _, pid := range pids {
		if ctx.Err() != nil {
			break
		}
		next <- pid
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(res.Uses, func(a, b Use) int {
		if a.PID != b.PID {
			return a.PID - b.PID
		}
		if c := slices.Index(kindOrder, a.Kind) - slices.Index(kindOrder, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Ident.String(), b.Ident.String())
	})
	slices.SortFunc(res.Held, func(a, b Held) int {
		if a.PID != b.PID {
			return a.PID - b.PID
		}
		return strings.Compare(a.Path, b.Path)
	})
	return res, nil
}

// reader reads processes; each worker has its own buffer.
type reader struct {
	m     *matcher
	ix    *identity // the store's release directories (nil: match by path only)
	proc  string
	buf   []byte // file contents
	link  []byte // link targets
	dents []byte // directory entries
	cache map[string]matched
	// store, storeErr: the store directory's stat (storeStat)
	store    *unix.Stat_t
	storeErr error
}

type matched struct {
	id     pkgstore.Ident
	file   string
	hidden bool
	ok     bool
	// cand: not matched, but a component of the path names a release
	// directory, so that another view of it may still be one (see
	// identity).
	cand bool
}

// match is matcher.match, then identity.lookup in the reader's own view,
// remembered: processes share most paths.
func (r *reader) match(p string) matched {
	if m, ok := r.cache[p]; ok {
		return m
	}
	return r.matchMiss(p)
}

// matchBytes is match for a path in a buffer (no copy when remembered).
func (r *reader) matchBytes(p []byte) matched {
	if m, ok := r.cache[string(p)]; ok {
		return m
	}
	return r.matchMiss(string(p))
}

func (r *reader) matchMiss(p string) matched {
	if r.cache == nil || len(r.cache) > 1<<14 {
		r.cache = map[string]matched{}
	}
	var m matched
	m.id, m.file, m.hidden, m.ok = r.m.match(p)
	if !m.ok && r.ix != nil && strings.HasPrefix(p, "/") {
		c := path.Clean(strings.TrimSuffix(p, " (deleted)"))
		if m.cand = r.ix.candidate(c); m.cand {
			if m.id, m.file, m.hidden, m.ok = r.ix.lookup("", c); m.ok {
				m.cand = false
			}
		}
	}
	r.cache[p] = m
	return m
}

type procState struct {
	uses   []Use
	held   []Held // files of installs in progress it holds open
	denied bool
	// mapsDenied: maps itself could not be read (permission)
	mapsDenied bool
	vanished   bool
	failed     string
	gone       bool // an ENOENT/ESRCH was met: check whether the process exited
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

// maxRead caps one read of maps, environ or cmdline. A larger one leaves
// the process counted as Failed.
const maxRead = 64 << 20

func (r *reader) process(pid int) procState {
	var st procState
	dir := r.proc + "/" + strconv.Itoa(pid)
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		st.note("open", err)
		if st.gone {
			st.vanished = true
		}
		return st
	}
	defer unix.Close(dfd)
	seen := map[[2]string]bool{}
	record := func(kind Kind, id pkgstore.Ident, file string, hidden bool) {
		key := [2]string{id.String(), string(kind)}
		if !seen[key] {
			seen[key] = true
			st.uses = append(st.uses, Use{PID: pid, Ident: id, Kind: kind, File: file, Hidden: hidden})
		}
	}
	root, err := r.readlinkat(dfd, "root")
	st.note("root", err)
	// try records the use a path (p, matched as the reader sees it: m)
	// stands for, else the one it stands for joined under the process's
	// root directory, as the process resolves it (another mount
	// namespace), or by the identity of the file itself: the one the proc
	// link named link (exe, cwd, fd/N) leads to, or with inode ino (maps).
	try := func(kind Kind, p string, m matched, link string, ino uint64) {
		if m.ok {
			record(kind, m.id, m.file, m.hidden)
			return
		}
		if root != "" && root != "/" {
			if m := r.match(root + p); m.ok {
				record(kind, m.id, m.file, m.hidden)
				return
			}
		}
		if !m.cand {
			return
		}
		c := path.Clean(strings.TrimSuffix(p, " (deleted)"))
		if id, file, hidden, ok := r.ix.lookup(dir+"/root", c); ok {
			record(kind, id, file, hidden)
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
			record(kind, id, file, hidden)
		}
	}
	held := map[string]bool{}
	add := func(kind Kind, p, link string) {
		if !strings.HasPrefix(p, "/") {
			return
		}
		if kind == KindFD || kind == KindCwd {
			if h, ok := r.m.held(p); ok && !held[h] {
				held[h] = true
				st.held = append(st.held, Held{PID: pid, Kind: kind, Path: h})
			}
		}
		try(kind, p, r.match(p), link, 0)
	}
	if err == nil {
		if m := r.match(root); m.ok {
			record(KindRoot, m.id, m.file, m.hidden)
		}
	}
	for _, l := range [...]struct {
		name string
		kind Kind
	}{{"exe", KindExe}, {"cwd", KindCwd}} {
		t, err := r.readlinkat(dfd, l.name)
		st.note(l.name, err)
		if err == nil {
			add(l.kind, t, l.name)
		}
	}
	if err := r.fds(dfd, func(name, t string) { add(KindFD, t, "fd/"+name) }); err != nil {
		st.note("fd", err)
	}
	if b, err := r.readAt(dfd, "maps"); err != nil {
		st.note("maps", err)
		st.mapsDenied = errors.Is(err, os.ErrPermission)
	} else if r.m.mayHold(b) || r.ix != nil && len(r.ix.names) > 0 {
		// Every line: a file mapped through a bind mount of the store
		// shows under any path.
		var prev []byte
		for line := range bytes.Lines(b) {
			if p, ok := mapsPathBytes(line); ok {
				if bytes.Equal(p, prev) {
					continue // the next segment of the same file
				}
				prev = p
				if m := r.matchBytes(p); m.ok || m.cand || root != "" && root != "/" {
					// By the inode column when by the file: the device
					// column is the superblock's, which is not stat's on
					// every file system (btrfs subvolumes, overlayfs).
					try(KindMap, string(p), m, "", mapsInode(line))
				}
			}
		}
	}
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
			st.note(f.name, err)
			continue
		}
		if f.kind == KindCmdline {
			if cmd, ok := habInstallCommand(b); ok && r.installsHere(dir, fsRoot) {
				st.held = append(st.held, Held{PID: pid, Kind: KindCmdline, Command: cmd})
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
				record(f.kind, id, file, hidden)
			}
		}
	}
	if len(st.uses) > 0 || len(st.held) > 0 {
		comm, err := r.readAt(dfd, "comm")
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
	if st.gone {
		if _, err := os.Stat(dir); err != nil {
			st.vanished = true
		}
	}
	return st
}

// fds calls f with the target of every link in the fd directory of a
// process. A descriptor closed since the listing is skipped.
func (r *reader) fds(dfd int, f func(name, target string)) error {
	fd, err := unix.Openat(dfd, "fd", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if r.dents == nil {
		r.dents = make([]byte, 16<<10)
	}
	var names []string
	for {
		n, err := unix.Getdents(fd, r.dents)
		if err != nil {
			return err
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(r.dents[:n], -1, names[:0])
		for _, name := range names {
			t, err := r.readlinkat(fd, name)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					continue
				}
				return err
			}
			f(name, t)
		}
	}
	return nil
}

// readlinkat reads a link relative to a directory descriptor.
func (r *reader) readlinkat(dfd int, name string) (string, error) {
	if r.link == nil {
		r.link = make([]byte, 4096)
	}
	for {
		n, err := unix.Readlinkat(dfd, name, r.link)
		if err != nil {
			return "", err
		}
		if n < len(r.link) {
			return string(r.link[:n]), nil
		}
		if len(r.link) >= 1<<20 {
			return "", fmt.Errorf("link %s longer than 1 MiB", name)
		}
		r.link = make([]byte, 2*len(r.link))
	}
}

// viewPrefixes are the store paths as a process with root directory root
// names them: the store itself when its root is "/", the part below root
// when the store lies under it, none otherwise.
//
// Habitat's own place for the store, /hab/pkgs/, is always one of them:
// a chroot or container may have the store bind-mounted there (matched
// by identity).
func (r *reader) viewPrefixes(root string) []string {
	if root == "" || root == "/" {
		if slices.Contains(r.m.stores, habStore) {
			return r.m.stores
		}
		return append(slices.Clip(r.m.stores), habStore)
	}
	var out []string
	for _, s := range r.m.stores {
		if rest, ok := strings.CutPrefix(s, strings.TrimSuffix(root, "/")+"/"); ok {
			out = append(out, "/"+rest)
		}
	}
	if !slices.Contains(out, habStore) {
		out = append(out, habStore)
	}
	return out
}

// readAt reads a whole proc file, relative to a process's directory, into
// the reader's buffer (valid until the next read).
func (r *reader) readAt(dfd int, name string) ([]byte, error) {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if r.buf == nil {
		r.buf = make([]byte, 0, 64<<10)
	}
	b := r.buf[:0]
	for {
		if len(b) == cap(b) {
			if cap(b) >= maxRead {
				return nil, fmt.Errorf("%s larger than %d MiB", name, maxRead>>20)
			}
			b = slices.Grow(b, cap(b))
		}
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		b = b[:len(b)+n]
	}
	r.buf = b
	return b, nil
}

var kindOrder = []Kind{KindExe, KindMap, KindFD, KindCwd, KindRoot, KindEnv, KindCmdline}

// mayHold reports whether b could contain a store path at all.
func (m *matcher) mayHold(b []byte) bool {
	for _, n := range m.needles {
		if bytes.Contains(b, n) {
			return true
		}
	}
	return false
}

// habStore is where Habitat keeps the store under its FS root.
const habStore = "/" + pkgstore.StoreDir + "/"

// mapsInode returns the inode column of a line of /proc/PID/maps (0 when
// it cannot be read).
func mapsInode(line []byte) uint64 {
	f := bytes.Fields(line)
	if len(f) < 5 {
		return 0
	}
	n, err := strconv.ParseUint(string(f[4]), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

package runroots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/inuse"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// overlayMagic is overlayfs's statfs type (OVERLAYFS_SUPER_MAGIC).
const overlayMagic = 0x794c7630

func (lp leaseProbe) probe(ctx context.Context, dirs []inuse.ProbeDir) (inuse.Probed, error) {
	var st probeStats
	var out inuse.Probed
	sfd, err := unix.Open(lp.store, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		st.unprobed, st.releasesUnprobed, st.example = len(dirs), len(dirs), "store: "+err.Error()
	} else {
		defer unix.Close(sfd)
		busy, err := lp.releases(ctx, sfd, dirs, &st)
		if err != nil {
			return out, err
		}
		for i, file := range busy {
			if file != nil {
				st.busy++
				out.Roots = append(out.Roots, inuse.Root{Ident: dirs[i].Ident, Code: inuse.CodeInUse, Text: busyText(*file)})
			}
		}
	}
	if err := lp.archives(ctx, &st, &out); err != nil {
		return out, err
	}
	out.Counts = map[string]int{"lease_probed_files": st.files, "lease_busy_releases": st.busy, "lease_unprobed_files": st.unprobed,
		"lease_probed_archives": st.archives, "lease_busy_archives": len(out.Installs), "lease_unprobed_archives": st.archivesUnprobed}
	out.Summary = lp.scan.Summary() + "; " + st.summary(len(dirs))
	out.Notice = lp.scan.notice(st.done(len(dirs), lp.bestEffort))
	if st.unprobed+st.archivesUnprobed > 0 && !lp.bestEffort {
		what := fmt.Sprintf("%d file(s) of %d release(s) to remove", st.unprobed, st.releasesUnprobed)
		if st.archivesUnprobed > 0 {
			what += fmt.Sprintf(" and %d archive(s) of the artifact cache an install may hold open", st.archivesUnprobed)
		}
		return out, fmt.Errorf("runtime roots: %s and a write lease cannot check %s instead (%s): %w; %s",
			lp.scan.blindText(), what, st.example, ErrBlind, lp.scan.remedy())
	}
	return out, nil
}

// archives adds to out.Installs each regular file of the artifact cache
// some process has open (a symlinked cache is followed, as Habitat does).
func (lp leaseProbe) archives(ctx context.Context, st *probeStats, out *inuse.Probed) error {
	cdir := filepath.Join(lp.fsRoot, filepath.FromSlash(pkgstore.ArtifactCacheDir))
	cfd, err := unix.Open(cdir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil // no cache: no install from it
	}
	var names []string
	if err == nil {
		d := os.NewFile(uintptr(cfd), cdir)
		defer d.Close()
		names, err = d.Readdirnames(-1)
	}
	if err != nil {
		st.archivesUnprobed++
		if st.example == "" {
			st.example = pkgstore.ArtifactCacheDir + ": " + err.Error()
		}
		return nil
	}
	held := map[string]bool{}
	for _, h := range lp.scan.Held {
		held[h.Path] = true // named already, with its process
	}
	w := walker{st: &probeStats{}, base: pkgstore.ArtifactCacheDir}
	for _, nm := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		var fs unix.Stat_t
		if unix.Fstatat(cfd, nm, &fs, unix.AT_SYMLINK_NOFOLLOW) != nil || fs.Mode&unix.S_IFMT != unix.S_IFREG {
			continue // never a FIFO or a device
		}
		rel := pkgstore.ArtifactCacheDir + "/" + nm
		before := w.st.unprobed
		busy := w.file(cfd, nm, "")
		switch {
		case w.st.unprobed > before:
			st.archivesUnprobed++
			if st.example == "" {
				st.example = w.st.example
			}
		case busy && !held[rel]:
			in := pkgstore.HeldArchive(lp.fsRoot, nm)
			in.By = "a process has " + printable(rel) + " open (a write lease on it is refused; /proc does not show every process fully)"
			out.Installs = append(out.Installs, in)
		}
	}
	st.archives += w.st.files
	return nil
}

// releases probes dirs on several goroutines; busy[i] is the first file
// of dirs[i] found in use. st's example is the first directory's that
// has one, whatever the goroutines' timing.
func (lp leaseProbe) releases(ctx context.Context, sfd int, dirs []inuse.ProbeDir, st *probeStats) ([]*string, error) {
	busy := make([]*string, len(dirs))
	workers := min(4*runtime.GOMAXPROCS(0), len(dirs))
	stats := make([]probeStats, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ws := &stats[w]
			ws.exampleAt = -1
			dents := make([]byte, 8<<10)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(dirs) || ctx.Err() != nil {
					return
				}
				ws.at = i
				if file, ok := lp.release(sfd, dirs[i].Dir(), ws, dents); ok {
					busy[i] = &file
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	first := -1
	for _, ws := range stats {
		st.files += ws.files
		st.unprobed += ws.unprobed
		st.releasesUnprobed += ws.releasesUnprobed
		if ws.example != "" && (first < 0 || ws.exampleAt < first) {
			first, st.example = ws.exampleAt, ws.example
		}
	}
	return busy, nil
}

// release returns the first file of the release directory rel found in
// use.
func (lp leaseProbe) release(sfd int, rel string, st *probeStats, dents []byte) (string, bool) {
	dfd, err := openBeneath(sfd, rel)
	switch {
	case err == nil:
		defer unix.Close(dfd)
		return lp.probeOpen(dfd, rel, st, dents)
	case errors.Is(err, unix.ENOENT):
		return "", false // gone: nothing to protect
	case !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM):
		st.cannot(rel, err)
		return "", false
	}
	// No openat2 (before Linux 5.6, or seccomp): a component at a time.
	dfd = sfd
	for rest := rel; rest != ""; {
		var c string
		c, rest, _ = strings.Cut(rest, "/")
		fd, err := unix.Openat(dfd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if dfd != sfd {
			unix.Close(dfd)
		}
		if errors.Is(err, unix.ENOENT) {
			return "", false // gone: nothing to protect
		}
		if err != nil {
			st.cannot(rel, err)
			return "", false
		}
		dfd = fd
	}
	defer unix.Close(dfd)
	return lp.probeOpen(dfd, rel, st, dents)
}

// openBeneath opens the directory rel under dirfd following no symlink.
func openBeneath(dirfd int, rel string) (int, error) {
	return unix.Openat2(dirfd, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_BENEATH,
	})
}

func (lp leaseProbe) probeOpen(dfd int, rel string, st *probeStats, dents []byte) (string, bool) {
	var root unix.Stat_t
	var sfs unix.Statfs_t
	if err := unix.Fstat(dfd, &root); err != nil {
		st.cannot(rel, err)
		return "", false
	}
	before := st.unprobed
	w := walker{st: st, dev: root.Dev, base: rel, dents: dents}
	file, busy := w.dir(dfd, "")
	if !busy && lp.mapsUnseen() && unix.Fstatfs(dfd, &sfs) == nil && sfs.Type == overlayMagic {
		// On overlayfs a mapping holds the lower file: a file mapped and
		// closed is not seen.
		st.unprobed += w.files
		if st.example == "" {
			st.example = "the store is on overlayfs, where a lease does not see a file mapped without an open descriptor"
		}
	}
	if st.unprobed > before {
		st.releasesUnprobed++
	}
	return file, busy
}

type walker struct {
	st    *probeStats
	base  string // the release, relative to the store
	dev   uint64
	files int
	dents []byte
}

// dir probes the regular files under dfd (rel in the release), following
// no symlink and crossing no mount.
func (w *walker) dir(dfd int, rel string) (string, bool) {
	if w.dents == nil {
		w.dents = make([]byte, 8<<10)
	}
	var subs []string
	for {
		n, err := unix.Getdents(dfd, w.dents)
		if err != nil {
			w.st.cannot(join(w.base, rel), err)
			return "", false
		}
		if n <= 0 {
			break
		}
		buf := w.dents[:n]
		for len(buf) > 0 {
			reclen := int(buf[16]) | int(buf[17])<<8
			typ := buf[18]
			name := buf[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			buf = buf[reclen:]
			nm := string(name)
			if nm == "." || nm == ".." {
				continue
			}
			if typ == unix.DT_UNKNOWN {
				var s unix.Stat_t
				if err := unix.Fstatat(dfd, nm, &s, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					continue
				}
				switch s.Mode & unix.S_IFMT {
				case unix.S_IFDIR:
					typ = unix.DT_DIR
				case unix.S_IFREG:
					typ = unix.DT_REG
				}
			}
			switch typ {
			case unix.DT_DIR:
				subs = append(subs, nm)
			case unix.DT_REG:
				if w.file(dfd, nm, rel) {
					return join(rel, nm), true
				}
			}
		}
	}
	for _, nm := range subs {
		fd, err := unix.Openat(dfd, nm, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ELOOP) && !errors.Is(err, unix.ENOTDIR) {
				w.st.cannot(join(w.base, join(rel, nm)), err)
			}
			continue
		}
		var s unix.Stat_t
		if unix.Fstat(fd, &s) != nil || s.Dev != w.dev {
			unix.Close(fd)
			continue
		}
		file, busy := w.dir(fd, join(rel, nm))
		unix.Close(fd)
		if busy {
			return file, true
		}
	}
	return "", false
}

// file reports whether another open file description of name exists.
func (w *walker) file(dfd int, name, dir string) bool {
	flags := unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOFOLLOW | unix.O_NOCTTY | unix.O_CLOEXEC
	fd, err := unix.Openat(dfd, name, flags|unix.O_NOATIME, 0)
	if errors.Is(err, unix.EPERM) {
		fd, err = unix.Openat(dfd, name, flags, 0) // O_NOATIME needs the owner or CAP_FOWNER
	}
	switch {
	case errors.Is(err, unix.EWOULDBLOCK):
		return true // someone holds a lease on it
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ELOOP):
		return false // gone, or now a symlink
	case err != nil:
		w.st.cannot(join(w.base, join(dir, name)), err)
		return false
	}
	defer unix.Close(fd)
	var s unix.Stat_t
	if unix.Fstat(fd, &s) != nil || s.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	w.st.files++
	w.files++
	_, err = unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_WRLCK)
	switch {
	case err == nil:
		unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK)
		return false
	case errors.Is(err, unix.EAGAIN):
		return true
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		w.st.files--
		w.st.cannot(join(w.base, join(dir, name)), fmt.Errorf("not its owner and no CAP_LEASE"))
	default:
		w.st.files--
		w.st.cannot(join(w.base, join(dir, name)), fmt.Errorf("no lease: %w", err))
	}
	return false
}

type probeStats struct {
	files, busy, unprobed, releasesUnprobed int
	archives, archivesUnprobed              int
	example                                 string // why a file could not be checked
	at, exampleAt                           int    // the release probed, the one example is of
}

// mapsUnseen reports whether the scan may have missed a mapping.
func (lp leaseProbe) mapsUnseen() bool {
	r := lp.scan
	return r.MapsDenied > 0 || r.Failed > 0 || r.hiding()
}

func (r *procScan) remedy() string {
	var how []string
	switch {
	case r.NotRoot:
		how = append(how, "run as root")
	case r.NoPtrace:
		how = append(how, "grant CAP_SYS_PTRACE")
	}
	if r.ChildPIDNamespace {
		how = append(how, "run in the host's PID namespace")
	}
	how = append(how, "accept what cannot be seen with best-effort runtime roots")
	return strings.Join(how, ", or ")
}

func busyText(file string) string {
	return fmt.Sprintf("a process has %s open, mapped or executing (a write lease on it is refused; /proc does not show every process fully)", printable(file))
}

func (st probeStats) summary(releases int) string {
	s := fmt.Sprintf("write leases: %d file(s) of %d release(s) to remove checked, %d release(s) in use", st.files, releases, st.busy)
	if st.unprobed > 0 {
		s += fmt.Sprintf(", %d file(s) could not be checked (%s)", st.unprobed, st.example)
	}
	s += fmt.Sprintf("; %d archive(s) of the artifact cache checked for installs in progress", st.archives)
	if st.archivesUnprobed > 0 {
		s += fmt.Sprintf(", %d could not be: an install holding one open is not seen", st.archivesUnprobed)
	}
	s += " (not seen: a working directory in an install directory, which only that directory's times show)"
	return s
}

func (st probeStats) done(releases int, bestEffort bool) string {
	s := fmt.Sprintf("the %d release(s) to remove were checked with write leases instead", releases)
	if st.busy > 0 {
		s += fmt.Sprintf(", %d found in use and kept", st.busy)
	}
	if n := st.unprobed + st.archivesUnprobed; n > 0 && bestEffort {
		s += fmt.Sprintf("; %d file(s) could not be checked and were accepted unseen (best-effort)", n)
	}
	return s
}

func (st *probeStats) cannot(rel string, err error) {
	st.unprobed++
	if st.example == "" {
		st.example, st.exampleAt = rel+": "+err.Error(), st.at
	}
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

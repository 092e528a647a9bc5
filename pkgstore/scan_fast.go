package pkgstore

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

// worker is what one scan goroutine reuses from release to release.
type worker struct {
	dirents []byte
	entries []safeio.DirEntry
	file    [2][]byte   // TARGET, IDENT and DEPS bodies; TDEPS's
	lines   [2][][]byte // of DEPS and TDEPS
	walk    onefs.Buffers
	top     safeio.Stat    // the release directory's
	stats   [4]safeio.Stat // of metaFiles, where read is set
	read    [4]bool
	known   func(name string) *safeio.Stat
}

func newWorker() *worker {
	w := &worker{dirents: make([]byte, 8<<10)}
	w.known = func(name string) *safeio.Stat {
		for i, f := range metaFiles {
			if f == name && w.read[i] {
				return &w.stats[i]
			}
		}
		return nil
	}
	return w
}

// list lists d, sorted by name.
func (w *worker) list(d safeio.DirFD) ([]safeio.DirEntry, error) {
	es, err := d.Entries(w.dirents, w.entries[:0])
	w.entries = es
	slices.SortFunc(es, func(a, b safeio.DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return es, err
}

// scanName reads the releases of one origin/name directory, newest first,
// so that those beyond the newest MeasureBeyond are known as they are read.
// On Linux every open below it is of one component relative to an open
// directory (safeio.DirFD); elsewhere, or for a release where anything is
// unusual, a version directory is read through an os.Root (scanReleaseSlow).
func (sc *scanner) scanName(w *worker, j nameJob) (found []*Release) {
	origin, name, odd := j.origin, j.name, j.odd
	nf, err := sc.store.pkgs.OpenFile(safeio.Dir(origin+"/"+name), os.O_RDONLY|oDirectory|syscall.O_NONBLOCK, 0)
	if err != nil {
		sc.unreadable(err, origin, name)
		return
	}
	defer nf.Close()
	var versions []safeio.DirEntry
	nd, err := safeio.DirFDOf(nf)
	fast := err == nil && !sc.opts.slowPath
	if err == nil {
		defer nd.Close()
	}
	if fast {
		versions, err = w.list(nd)
		versions = slices.Clone(versions) // w.entries is reused below
	} else {
		versions, err = listOpen(nf)
	}
	if err != nil {
		sc.unreadable(err, origin, name)
		return
	}
	slices.SortFunc(versions, func(a, b safeio.DirEntry) int {
		if c := compareVersions(b.Name, a.Name); c != 0 {
			return c
		}
		return strings.Compare(b.Name, a.Name)
	})
	for _, v := range versions {
		if ok, odd := sc.dirEntryOK(v.Type, "version", odd, origin, name, v.Name); ok {
			found = sc.scanVersion(w, nd, fast, j, v.Name, odd, found)
		}
	}
	return found
}

// scanVersion reads the releases of one version directory of j (odd says
// why a name on its path cannot be part of an ident, or is ""), newest
// first, and appends them to found. The os.Root at the version directory
// is opened only when a release needs it.
func (sc *scanner) scanVersion(w *worker, nd safeio.DirFD, fast bool, j nameJob, version, odd string, found []*Release) []*Release {
	origin, name := j.origin, j.name
	var vroot *os.Root
	defer func() {
		if vroot != nil {
			vroot.Close()
		}
	}()
	openVroot := func() (*os.Root, error) {
		if vroot == nil {
			r, err := sc.store.pkgs.OpenRoot(safeio.Dir(origin + "/" + name + "/" + version))
			if err != nil {
				return nil, err
			}
			vroot = r
		}
		return vroot, nil
	}
	var vd safeio.DirFD
	var rels []safeio.DirEntry
	var err error
	if fast {
		if vd, err = nd.OpenDir(version); err == nil {
			defer vd.Close()
			rels, err = w.list(vd)
		}
	} else if _, err = openVroot(); err == nil {
		rels, err = listDir(vroot, ".")
	}
	if err != nil {
		sc.unreadable(err, origin, name, version)
		return found
	}
	slices.Reverse(rels)
	for _, r := range rels {
		if strings.HasPrefix(r.Name, InstallTempPrefix) {
			vr, err := openVroot()
			switch {
			case err != nil:
				sc.unreadable(err, origin, name, version)
			case strings.HasPrefix(r.Name, DebrisPrefix):
				taken := func(n string) bool {
					return slices.ContainsFunc(rels, func(e safeio.DirEntry) bool { return e.Name == n })
				}
				if rel := sc.debrisEntry(vr, origin, name, version, r.Name, r.Type, odd, taken); rel != nil {
					found = append(found, rel)
				}
			default:
				sc.leftover(vr, origin, name, version, r.Name)
			}
			continue
		}
		ok, odd := sc.dirEntryOK(r.Type, "release", odd, origin, name, version, r.Name)
		if !ok {
			continue
		}
		id := Ident{origin, name, version, r.Name}
		rel, read := (*Release)(nil), false
		if fast && odd == "" {
			measure := sc.opts.MeasureBeyond > 0 && len(found) >= sc.opts.MeasureBeyond
			rel, read = sc.scanReleaseFast(w, vd, id, measure)
		}
		if !read {
			vr, err := openVroot()
			if err != nil {
				sc.unreadable(err, origin, name, version)
				continue
			}
			rel = sc.scanReleaseSlow(vr, id, id.Release, odd)
		}
		if rel != nil {
			found = append(found, rel)
		}
	}
	return found
}

// splitLines splits a trimmed body into lines without their \r, reusing
// out; an empty body has none (nil).
func splitLines(body []byte, out [][]byte) [][]byte {
	if len(body) == 0 {
		return nil
	}
	out = out[:0]
	for len(body) > 0 {
		l := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			l, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		out = append(out, bytes.TrimSuffix(l, []byte{'\r'}))
	}
	return out
}

// metaFiles are the files scanReleaseFast reads, in order.
var metaFiles = [4]string{"TARGET", "IDENT", "DEPS", "TDEPS"}

// scanReleaseFast reads a common release: a regular TARGET for the scan's
// target, an IDENT that matches its path, DEPS and TDEPS regular or absent
// and of valid idents. On anything else it returns fast false with nothing
// recorded, for scanReleaseSlow to say what is wrong. With measure (or
// Options.Sizes) the release is measured while it is open.
func (sc *scanner) scanReleaseFast(w *worker, vd safeio.DirFD, id Ident, measure bool) (rel *Release, fast bool) {
	rd, err := vd.OpenDir(id.Release)
	if err != nil {
		return nil, false
	}
	defer rd.Close()
	if rd.Stat(&w.top) != nil {
		return nil, false
	}
	w.read = [4]bool{}
	fq := id.String()
	var lines [2][][]byte
	for i, file := range metaFiles {
		buf := &w.file[max(i-2, 0)]
		body, err := rd.ReadFile(file, safeio.Limit, *buf, &w.stats[i])
		if i >= 2 && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, false
		}
		*buf, w.read[i] = body, true
		body = bytes.TrimSpace(body)
		switch file {
		case "TARGET":
			if string(body) != sc.opts.Target { // checkTarget made it valid
				return nil, false
			}
		case "IDENT":
			if string(body) != fq {
				return nil, false
			}
		default:
			w.lines[i-2] = splitLines(body, w.lines[i-2])
			lines[i-2] = w.lines[i-2]
		}
	}
	rel = &Release{Ident: id, Size: -1}
	rel.ModTime, rel.ChangeTime, rel.Dev, rel.Ino = safeio.StatTimes(&w.top)
	if bad := sc.intern(rel, lines, "", fq); len(bad) > 0 {
		return nil, false
	}
	if measure || sc.opts.Sizes {
		if u, err := onefs.MeasureOpen(rd.Fd(), &w.top, w.known, &w.walk); err == nil || u.Bytes > 0 {
			rel.Size = u.Bytes
		} else if sc.opts.Sizes {
			rel.Size = measureAt(vd, id.Release, &w.walk)
		}
	}
	return rel, true
}

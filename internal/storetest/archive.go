package storetest

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ulikunitz/xz"
)

// ArchiveEntry is one entry of a package archive's tar.
type ArchiveEntry struct {
	// Name is the tar path (hab/pkgs/O/N/V/R/... for Habitat's entries;
	// directories end in "/").
	Name string
	// Dir marks a directory (also when Name has no trailing "/").
	Dir bool
	// Body is a regular file's content; Link a symlink's target.
	Body string
	Link string
	Mode int64
	// ModTime is the entry's mtime (an archive's are as old as its build).
	ModTime time.Time
}

// IsDir reports whether the entry is a directory.
func (e ArchiveEntry) IsDir() bool { return e.Dir || strings.HasSuffix(e.Name, "/") }

// Archive describes a package archive (.hart) as Habitat's build writes
// one. hab-plan-build (components/plan-build/bin/hab-plan-build-linux.sh,
// _generate_artifact) runs `tar -cf TARF $pkg_prefix`, so the tar's first
// entry is the release directory hab/pkgs/O/N/V/R/, followed by its files in
// directory order: the metadata files (IDENT, TARGET, MANIFEST, DEPS,
// TDEPS, ...) may come before or after the payload. Older archives, such as
// Habitat's own test fixture
// (components/core/tests/fixtures/unhappyhumans-possums-8.1.4-20160427165340-x86_64-linux.hart),
// start with the parent directories hab/, hab/pkgs, hab/pkgs/O, ... first.
type Archive struct {
	// Ident is the fully qualified ident; Target defaults to DefaultTarget.
	Ident  string
	Target string
	// Deps are written as DEPS; TDeps as TDEPS (nil: TDEPS is Deps).
	// Neither is written when empty, as hab-plan-build does.
	Deps, TDeps []string
	// Payload are extra files (paths relative to the release directory,
	// "bin/x"); each holds its own path.
	Payload []string
	// MetaLast puts the metadata files after the payload.
	MetaLast bool
	// Parents adds hab/, hab/pkgs, ... entries before the release's, as
	// the 2016 fixture has them (names without a trailing slash, as in
	// that fixture).
	Parents bool
	// Prefix goes before "hab/pkgs" in every entry ("", "/" or "opt/").
	Prefix string
	// ModTime is every entry's mtime (default: 2020-01-01, years old).
	ModTime time.Time
}

func (a Archive) target() string {
	if a.Target == "" {
		return DefaultTarget
	}
	return a.Target
}

// FileName is the name Habitat gives the archive in its cache:
// ORIGIN-NAME-VERSION-RELEASE-TARGET.hart
// (components/core/src/package/ident.rs archive_name_impl).
func (a Archive) FileName() string {
	return strings.ReplaceAll(a.Ident, "/", "-") + "-" + a.target() + ".hart"
}

// Entries returns the archive's tar entries in order.
func (a Archive) Entries() []ArchiveEntry {
	mt := a.ModTime
	if mt.IsZero() {
		mt = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	var es []ArchiveEntry
	if a.Parents {
		parts := strings.Split(a.Ident, "/")
		p := a.Prefix + "hab"
		es = append(es, ArchiveEntry{Name: p, Dir: true, Mode: 0o755, ModTime: mt})
		p += "/pkgs"
		es = append(es, ArchiveEntry{Name: p, Dir: true, Mode: 0o755, ModTime: mt})
		for _, part := range parts[:len(parts)-1] {
			p += "/" + part
			es = append(es, ArchiveEntry{Name: p, Dir: true, Mode: 0o755, ModTime: mt})
		}
	}
	dir := a.Prefix + "hab/pkgs/" + a.Ident + "/"
	es = append(es, ArchiveEntry{Name: dir, Mode: 0o755, ModTime: mt})
	file := func(name, body string) ArchiveEntry {
		return ArchiveEntry{Name: dir + name, Body: body, Mode: 0o644, ModTime: mt}
	}
	meta := []ArchiveEntry{file("IDENT", a.Ident+"\n"), file("TARGET", a.target()+"\n"),
		file("MANIFEST", a.Ident+"\n=====\n")}
	if len(a.Deps) > 0 {
		meta = append(meta, file("DEPS", strings.Join(a.Deps, "\n")+"\n"))
	}
	tdeps := a.TDeps
	if tdeps == nil {
		tdeps = a.Deps
	}
	if len(tdeps) > 0 {
		meta = append(meta, file("TDEPS", strings.Join(tdeps, "\n")+"\n"))
	}
	var payload []ArchiveEntry
	made := map[string]bool{}
	for _, p := range a.Payload {
		segs := strings.Split(p, "/")
		for i := 1; i < len(segs); i++ {
			d := strings.Join(segs[:i], "/") + "/"
			if !made[d] {
				made[d] = true
				payload = append(payload, ArchiveEntry{Name: dir + d, Mode: 0o755, ModTime: mt})
			}
		}
		e := file(p, "/hab/pkgs/"+a.Ident+"/"+p+"\n")
		e.Mode = 0o755
		payload = append(payload, e)
	}
	if a.MetaLast {
		return append(append(es, payload...), meta...)
	}
	return append(append(es, meta...), payload...)
}

// Bytes returns the .hart: HartHeader, then the xz tar of Entries.
func (a Archive) Bytes() []byte { return HartEntries(a.Entries()...) }

// HartEntries returns a .hart (HartHeader, then an xz tar) holding the
// given entries in order.
func HartEntries(entries ...ArchiveEntry) []byte {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Mode: e.Mode, ModTime: e.ModTime, Format: tar.FormatGNU}
		switch {
		case e.Link != "":
			h.Typeflag, h.Linkname = tar.TypeSymlink, e.Link
		case e.IsDir():
			h.Typeflag = tar.TypeDir
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.Body))
		}
		if err := tw.WriteHeader(h); err != nil {
			panic(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(e.Body))
		}
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	var out bytes.Buffer
	out.WriteString(HartHeader)
	xw, err := xz.NewWriter(&out)
	if err != nil {
		panic(err)
	}
	xw.Write(tb.Bytes())
	if err := xw.Close(); err != nil {
		panic(err)
	}
	return out.Bytes()
}

// ReadHart returns the entries of a .hart's tar, in order (as tar-rs reads
// them for Habitat's PackageArchive), names as they are in the tar.
func ReadHart(hart []byte) ([]ArchiveEntry, error) {
	br := bufio.NewReader(bytes.NewReader(hart))
	for i := 0; i < 5; i++ {
		if _, err := br.ReadString('\n'); err != nil {
			return nil, fmt.Errorf("hart header: %w", err)
		}
	}
	xr, err := xz.NewReader(br)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(xr)
	var es []ArchiveEntry
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return es, nil
		}
		if err != nil {
			return nil, err
		}
		e := ArchiveEntry{Name: h.Name, Mode: h.Mode, ModTime: h.ModTime}
		switch h.Typeflag {
		case tar.TypeDir:
			e.Dir = true
		case tar.TypeSymlink:
			e.Link = h.Linkname
		default:
			b, err := io.ReadAll(tr)
			if err != nil {
				return nil, err
			}
			e.Body = string(b)
		}
		es = append(es, e)
	}
}

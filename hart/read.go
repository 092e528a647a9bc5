package hart

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ulikunitz/xz"
)

// ErrNotHart is wrapped by errors about a file that is not a readable
// .hart.
var ErrNotHart = errors.New("not a readable Habitat package archive (.hart)")

// ErrLimit is wrapped when a metadata file asked for lies beyond the
// bounds of what is read (Limits).
var ErrLimit = errors.New("beyond the bounds hab-gc reads of an archive")

// ErrInvalidLimits is wrapped by Limits.Validate's errors (and so by
// Read's, which then reads nothing).
var ErrInvalidLimits = errors.New("invalid archive read limits")

// Limits bound what Read reads. A zero field is DefaultLimits' (the zero
// Limits is DefaultLimits); a negative one is refused (Validate): there
// is no "unbounded".
type Limits struct {
	// Unpacked bounds the bytes decompressed.
	Unpacked int64
	// Entries bounds the tar entries read.
	Entries int
	// Meta bounds one metadata file (a TDEPS of thousands of lines is a
	// few hundred KiB).
	Meta int64
}

// DefaultLimits are 64 MiB decompressed, 100,000 entries, 4 MiB a
// metadata file.

// typeRegA is the old tar flag for a regular file ('\x00', tar.TypeRegA,
// deprecated): old archivers write it, and such an archive's files are
// regular files.
const typeRegA = '\x00'

func DefaultLimits() Limits { return Limits{Unpacked: 64 << 20, Entries: 100_000, Meta: 4 << 20} }

// Validate refuses a negative bound.
func (l Limits) Validate() error {
	if l.Unpacked < 0 || l.Entries < 0 || l.Meta < 0 {
		return fmt.Errorf("%w: %+v has a negative bound (0 is the default)", ErrInvalidLimits, l)
	}
	return nil
}

// resolved is l with each zero bound set to DefaultLimits'.
func (l Limits) resolved() Limits {
	d := DefaultLimits()
	if l.Unpacked == 0 {
		l.Unpacked = d.Unpacked
	}
	if l.Entries == 0 {
		l.Entries = d.Entries
	}
	if l.Meta == 0 {
		l.Meta = d.Meta
	}
	return l
}

// maxHeaderLine bounds each header line (a signature is about 90 bytes of
// base64).
const maxHeaderLine = 4096

// Header is a .hart's header.
type Header struct {
	Format    string // HART-1
	KeyName   string // signing key with revision: core-20180119235000
	HashType  string // BLAKE2b
	Signature string // base64
}

// ParseHeader reads a header (four lines and a blank one) from r, no line
// longer than a few KiB; r is left at the start of the archive.
func ParseHeader(r *bufio.Reader) (Header, error) {
	var lines [5]string
	for i := range lines {
		line, err := readLine(r)
		if err != nil {
			return Header{}, fmt.Errorf("%w: header line %d: %v", ErrNotHart, i+1, err)
		}
		lines[i] = line
	}
	h := Header{Format: lines[0], KeyName: lines[1], HashType: lines[2], Signature: lines[3]}
	switch {
	case h.Format != "HART-1":
		return Header{}, fmt.Errorf("%w: first line is not HART-1", ErrNotHart)
	case !printable(h.KeyName) || h.KeyName == "":
		return Header{}, fmt.Errorf("%w: bad key name line", ErrNotHart)
	case !printable(h.HashType) || h.HashType == "":
		return Header{}, fmt.Errorf("%w: bad hash type line", ErrNotHart)
	case h.Signature == "" || strings.Trim(h.Signature, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != "":
		return Header{}, fmt.Errorf("%w: the signature line is not base64", ErrNotHart)
	case lines[4] != "":
		return Header{}, fmt.Errorf("%w: no blank line after the header", ErrNotHart)
	}
	return h, nil
}

func readLine(r *bufio.Reader) (string, error) {
	var b bytes.Buffer
	for {
		c, err := r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		if c == '\n' {
			return strings.TrimSuffix(b.String(), "\r"), nil
		}
		if b.Len() >= maxHeaderLine {
			return "", errors.New("line too long")
		}
		b.WriteByte(c)
	}
}

func printable(s string) bool {
	for _, r := range s {
		if r < 0x21 || r > 0x7e {
			return false
		}
	}
	return true
}

// Archive is what Read found in a .hart.
type Archive struct {
	Header Header
	// Ident is the IDENT file's content (origin/name/version/release),
	// which agrees with the release directory its entry lies in.
	Ident string
	// Target is TARGET's content ("" when not read).
	Target string
	// Deps and TDeps are the lines of DEPS and TDEPS, as written (each
	// meant to be a fully qualified ident; the caller parses them).
	Deps, TDeps []string
	// Complete is true when the whole tar was read: a metadata file not
	// found is then absent (Habitat writes no DEPS or TDEPS for a package
	// without dependencies). Otherwise Read stopped at a bound or as asked.
	Complete bool
}

// Want says which metadata files Read needs; it stops once it has them.
type Want int

const (
	// WantIdent stops once IDENT and TARGET are read.
	WantIdent Want = iota
	// WantDeps reads on until IDENT, TARGET and TDEPS are read, or the
	// end: hab-plan-build's tar is in directory order, so TARGET may come
	// after TDEPS.
	WantDeps
)

// Read reads a .hart from r within lim. The archive's release is
// identified by its IDENT (which must be a fully qualified ident and agree
// with the path of its entry); every metadata entry read must belong to
// that release's directory (an archive of two releases is refused).
// Errors wrap ErrNotHart, or ErrLimit when a bound stopped Read before
// IDENT.
func Read(r io.Reader, lim Limits, want Want) (*Archive, error) {
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	lim = lim.resolved()
	br := bufio.NewReaderSize(r, 64<<10)
	h, err := ParseHeader(br)
	if err != nil {
		return nil, err
	}
	a := &Archive{Header: h}
	xr, err := xz.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%w: archive: %v", ErrNotHart, err)
	}
	lr := &io.LimitedReader{R: xr, N: lim.Unpacked}
	tr := tar.NewReader(lr)
	var rel string // the release directory O/N/V/R metadata entries are in
	var haveTarget bool
	for i := 0; ; i++ {
		if i >= lim.Entries {
			break
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			a.Complete = true
			break
		}
		if err != nil {
			if lr.N <= 0 {
				break // the bound
			}
			return nil, fmt.Errorf("%w: archive: %v", ErrNotHart, err)
		}
		dir, file, ok := MetaPath(hdr.Name)
		if !ok {
			continue
		}
		if rel != "" && dir != rel {
			return nil, fmt.Errorf("%w: metadata of two releases, %s and %s", ErrNotHart, rel, dir)
		}
		rel = dir
		if hdr.Typeflag != tar.TypeReg && hdr.Typeflag != typeRegA {
			return nil, fmt.Errorf("%w: %s is not a regular file", ErrNotHart, hdr.Name)
		}
		if hdr.Size > lim.Meta {
			return nil, fmt.Errorf("%w: %s: %d bytes", ErrLimit, hdr.Name, hdr.Size)
		}
		body, err := io.ReadAll(io.LimitReader(tr, lim.Meta))
		if err != nil {
			if lr.N <= 0 {
				break
			}
			return nil, fmt.Errorf("%w: archive: %v", ErrNotHart, err)
		}
		text := strings.TrimSpace(string(body))
		switch file {
		case "IDENT":
			if text != dir {
				return nil, fmt.Errorf("%w: IDENT %s is not its directory's release %s", ErrNotHart, quote(text), dir)
			}
			a.Ident = text
		case "TARGET":
			a.Target, haveTarget = text, true
		case "DEPS":
			a.Deps = lines(text)
		case "TDEPS":
			a.TDeps = lines(text)
		}
		if a.Ident != "" && haveTarget && want == WantIdent || want == WantDeps && a.Ident != "" && haveTarget && a.TDeps != nil {
			break
		}
	}
	if a.Ident == "" {
		if !a.Complete {
			return nil, fmt.Errorf("%w: no IDENT within the first %d entries or %d bytes", ErrLimit, lim.Entries, lim.Unpacked)
		}
		return nil, fmt.Errorf("%w: no IDENT entry hab/pkgs/ORIGIN/NAME/VERSION/RELEASE/IDENT", ErrNotHart)
	}
	return a, nil
}

// MetaPath splits a tar path that matches Habitat's metadata pattern
// ^/?(?:opt/)?hab/pkgs/([^/]+)/([^/]+)/([^/]+)/([^/]+)/FILE$ into the
// release ("O/N/V/R") and FILE (upper-case letters and "_", as Habitat's
// MetaFile names are). A part that is "." or ".." does not match.
func MetaPath(name string) (release, file string, ok bool) {
	n := strings.TrimPrefix(name, "/")
	n = strings.TrimPrefix(n, "opt/")
	rest, found := strings.CutPrefix(n, "hab/pkgs/")
	if !found {
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 5 {
		return "", "", false
	}
	for _, p := range parts[:4] {
		if p == "" || p == "." || p == ".." {
			return "", "", false
		}
	}
	f := parts[4]
	if f == "" || strings.Trim(f, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != "" {
		return "", "", false
	}
	return strings.Join(parts[:4], "/"), f, true
}

func lines(s string) []string {
	out := []string{}
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func quote(s string) string {
	if len(s) > 80 {
		return strconv.Quote(s[:80]) + "..."
	}
	return strconv.Quote(s)
}

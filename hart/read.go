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

var ErrNotHart = errors.New("not a readable Habitat package archive (.hart)")

var ErrLimit = errors.New("beyond the bounds hab-gc reads of an archive")

var ErrInvalidLimits = errors.New("invalid archive read limits")

// Limits bound what Read reads; a zero field is DefaultLimits', a negative
// one is refused: there is no "unbounded".
type Limits struct {
	Unpacked int64 // bytes decompressed
	Entries  int   // tar entries
	Meta     int64 // one metadata file (a long TDEPS is a few hundred KiB)
}

// typeRegA is tar.TypeRegA (deprecated), which old archivers still write.
const typeRegA = '\x00'

func DefaultLimits() Limits { return Limits{Unpacked: 64 << 20, Entries: 100_000, Meta: 4 << 20} }

func (l Limits) Validate() error {
	if l.Unpacked < 0 || l.Entries < 0 || l.Meta < 0 {
		return fmt.Errorf("%w: %+v has a negative bound (0 is the default)", ErrInvalidLimits, l)
	}
	return nil
}

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

// maxHeaderLine: a signature is about 90 bytes of base64.
const maxHeaderLine = 4096

type Header struct {
	Format    string // HART-1
	KeyName   string // signing key with revision: core-20180119235000
	HashType  string // BLAKE2b
	Signature string // base64
}

// parseHeader reads four lines and a blank one, leaving r at the archive.
func parseHeader(r *bufio.Reader) (Header, error) {
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

type Archive struct {
	Header      Header
	Ident       string   // IDENT, which agrees with its entry's directory
	Target      string   // "" when not read
	Deps, TDeps []string // lines as written, unparsed
	// Complete: the whole tar was read, so a file not found is absent
	// (Habitat writes no DEPS or TDEPS without dependencies).
	Complete bool
}

// Want says which metadata files Read needs; it stops once it has them.
type Want int

const (
	WantIdent Want = iota // IDENT and TARGET
	WantDeps              // and TDEPS, which may come before TARGET
)

// Read refuses metadata of two releases in one archive. Errors wrap
// ErrNotHart, or ErrLimit when a bound stopped Read before IDENT.
func Read(r io.Reader, lim Limits, want Want) (*Archive, error) {
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	lim = lim.resolved()
	br := bufio.NewReaderSize(r, 64<<10)
	h, err := parseHeader(br)
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
	var rel string // O/N/V/R
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
		dir, file, ok := metaPath(hdr.Name)
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

// metaPath splits a path matching METAFILE_REGXS into "O/N/V/R" and FILE
// (upper case and "_", as MetaFile names are); "." or ".." never matches.
func metaPath(name string) (release, file string, ok bool) {
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

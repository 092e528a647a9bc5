package artifactcache

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ulikunitz/xz"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrNotHart is wrapped by errors about a file that is not a readable
// .hart.
var ErrNotHart = errors.New("not a readable Habitat package archive (.hart)")

// Limits on what is read of a file.
const (
	// maxHeaderLine bounds each header line (a signature is about 90
	// bytes of base64).
	maxHeaderLine = 4096
	// maxEntries is how many tar entries are read to find the release
	// directory (Habitat writes it first).
	maxEntries = 16
	// maxUnpacked bounds the bytes decompressed while reading them.
	maxUnpacked = 16 << 20
)

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

// Identify reads a .hart: its header, then the first entries of its xz
// tar archive, and returns the header and the release the archive
// installs (from the path hab/pkgs/ORIGIN/NAME/VERSION/RELEASE/ of its
// entries). Every entry read must lie under that one release directory.
func Identify(r io.Reader) (Header, pkgstore.Ident, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	h, err := ParseHeader(br)
	if err != nil {
		return h, pkgstore.Ident{}, err
	}
	xr, err := xz.NewReader(br)
	if err != nil {
		return h, pkgstore.Ident{}, fmt.Errorf("%w: archive: %v", ErrNotHart, err)
	}
	tr := tar.NewReader(io.LimitReader(xr, maxUnpacked))
	var id pkgstore.Ident
	for i := 0; i < maxEntries; i++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) && i > 0 {
			break
		}
		if err != nil {
			if id.Origin != "" {
				break // the rest may be beyond the read limit
			}
			return h, pkgstore.Ident{}, fmt.Errorf("%w: archive: %v", ErrNotHart, err)
		}
		got, ok := releaseOf(hdr.Name)
		if !ok {
			return h, pkgstore.Ident{}, fmt.Errorf("%w: entry %q is not under hab/pkgs/ORIGIN/NAME/VERSION/RELEASE/", ErrNotHart, hdr.Name)
		}
		if id.Origin != "" && got != id {
			return h, pkgstore.Ident{}, fmt.Errorf("%w: entries of two releases, %s and %s", ErrNotHart, id, got)
		}
		id = got
	}
	if id.Origin == "" {
		return h, pkgstore.Ident{}, fmt.Errorf("%w: no entry names a release", ErrNotHart)
	}
	return h, id, nil
}

// releaseOf returns the release whose directory a tar path lies in (or
// is): hab/pkgs/O/N/V/R[/...], with an optional leading "./" or "/".
func releaseOf(name string) (pkgstore.Ident, bool) {
	name = strings.TrimPrefix(strings.TrimPrefix(name, "./"), "/")
	parts := strings.Split(strings.TrimSuffix(name, "/"), "/")
	if len(parts) < 6 || parts[0] != "hab" || parts[1] != "pkgs" {
		return pkgstore.Ident{}, false
	}
	for _, p := range parts[6:] {
		if p == ".." {
			return pkgstore.Ident{}, false
		}
	}
	id, err := pkgstore.ParseFullIdent(strings.Join(parts[2:6], "/"))
	return id, err == nil
}

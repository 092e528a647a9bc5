package storetest

import (
	"archive/tar"
	"bytes"
	"strings"

	"github.com/ulikunitz/xz"
)

// HartHeader is a .hart header as Habitat writes it (HART-1, key name with
// revision, hash type, base64 signature, blank line).
const HartHeader = "HART-1\ncore-20180119235000\nBLAKE2b\nc2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJl\n\n"

// Hart returns a package archive as Habitat's build writes it (see
// Archive): the header, then an xz tar whose entries are the release
// directory hab/pkgs/IDENT/ first, then its IDENT, TARGET and MANIFEST.
func Hart(ident string) []byte { return Archive{Ident: ident}.Bytes() }

// HartOf returns a .hart whose archive holds the given paths (names
// ending in "/" are directories; files hold a line).
func HartOf(names ...string) []byte {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, n := range names {
		if strings.HasSuffix(n, "/") {
			tw.WriteHeader(&tar.Header{Name: n, Typeflag: tar.TypeDir, Mode: 0o755})
			continue
		}
		body := n + "\n"
		tw.WriteHeader(&tar.Header{Name: n, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))})
		tw.Write([]byte(body))
	}
	tw.Close()
	var out bytes.Buffer
	out.WriteString(HartHeader)
	xw, err := xz.NewWriter(&out)
	if err != nil {
		panic(err)
	}
	xw.Write(tb.Bytes())
	xw.Close()
	return out.Bytes()
}

package artifactcache

import (
	"errors"
	"fmt"
	"io"

	"github.com/hab-gc/hab-gc/hart"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrNotHart is wrapped by errors about a file that is not a readable
// .hart: it is hart.ErrNotHart (package hart reads the archives).
var ErrNotHart = hart.ErrNotHart

// Identify reads a .hart as Habitat's PackageArchive::ident does
// (components/core/src/package/archive.rs): its header, then its xz tar's
// entries up to IDENT and TARGET, skipping what is not a metadata file of
// a release (the parent directories hab/, hab/pkgs, ... of older
// archives; payload), also under the opt/hab/pkgs prefix Habitat's
// pattern accepts. The release is IDENT's, which must agree with the path
// of its entry. Reads are bounded (hart.DefaultLimits).
func Identify(r io.Reader) (hart.Header, pkgstore.Ident, error) {
	h, id, _, err := identify(r)
	return h, id, err
}

// identify is Identify, with the archive's TARGET ("" when it has none
// within the bounds).
func identify(r io.Reader) (hart.Header, pkgstore.Ident, string, error) {
	a, err := hart.Read(r, hart.DefaultLimits(), hart.WantIdent)
	if err != nil {
		var h hart.Header
		if a != nil {
			h = a.Header
		}
		if !errors.Is(err, ErrNotHart) {
			err = fmt.Errorf("%w: %w", ErrNotHart, err)
		}
		return h, pkgstore.Ident{}, "", err
	}
	id, err := pkgstore.ParseFullIdent(a.Ident)
	if err != nil {
		return a.Header, pkgstore.Ident{}, "", fmt.Errorf("%w: IDENT: %v", ErrNotHart, err)
	}
	return a.Header, id, a.Target, nil
}

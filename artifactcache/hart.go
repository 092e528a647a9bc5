package artifactcache

import (
	"errors"
	"fmt"
	"io"

	"github.com/hab-gc/hab-gc/hart"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// identify reads a .hart's IDENT and TARGET as Habitat's
// PackageArchive::ident does (components/core/src/package/archive.rs).
// Errors wrap hart.ErrNotHart.
func identify(r io.Reader) (pkgstore.Ident, string, error) {
	a, err := hart.Read(r, hart.DefaultLimits(), hart.WantIdent)
	if err != nil {
		if !errors.Is(err, hart.ErrNotHart) {
			err = fmt.Errorf("%w: %w", hart.ErrNotHart, err)
		}
		return pkgstore.Ident{}, "", err
	}
	id, err := pkgstore.ParseFullIdent(a.Ident)
	if err != nil {
		return pkgstore.Ident{}, "", fmt.Errorf("%w: IDENT: %v", hart.ErrNotHart, err)
	}
	return id, a.Target, nil
}

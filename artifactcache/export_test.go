package artifactcache

import (
	"io"

	"github.com/hab-gc/hab-gc/hart"
	"github.com/hab-gc/hab-gc/pkgstore"
)

var ErrNotHart = hart.ErrNotHart

func Identify(r io.Reader) (target string, id pkgstore.Ident, err error) {
	id, target, err = identify(r)
	return target, id, err
}

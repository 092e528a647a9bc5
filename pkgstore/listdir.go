package pkgstore

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// listDir lists the directory name in r (never through a symlink, never
// blocking on a FIFO), sorted by name.
func listDir(r *os.Root, name string) ([]safeio.DirEntry, error) {
	f, err := r.Open(safeio.Dir(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return listOpen(f)
}

// listOpen lists the open directory f, sorted by name. On Linux the types
// are those getdents gives, with no lstat of each entry (13,000 of them to
// list the top of a store of 130,000 releases through os.Root).
func listOpen(f *os.File) ([]safeio.DirEntry, error) {
	var es []safeio.DirEntry
	d, err := safeio.DirFDOf(f)
	switch {
	case err == nil:
		es, err = d.Entries(make([]byte, 8<<10), nil)
		d.Close()
	case errors.Is(err, errors.ErrUnsupported):
		var des []fs.DirEntry
		des, err = f.ReadDir(-1)
		for _, e := range des {
			es = append(es, safeio.DirEntry{Name: e.Name(), Type: e.Type()})
		}
	default:
		return nil, err
	}
	slices.SortFunc(es, func(a, b safeio.DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return es, err
}

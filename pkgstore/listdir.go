package pkgstore

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// listDir lists the directory name in r, sorted by name, as readDir does,
// for a caller that needs each entry's name and type alone: where the
// platform lets (Linux), the types are those getdents gives on the open
// directory, with no lstat of each entry, which an os.Root's ReadDir
// makes (13,000 of them to list the top of a store of 130,000 releases).
// It opens name as readDir does (a
// directory only, never through a symlink: a FIFO there fails, it does
// not block).
func listDir(r *os.Root, name string) ([]safeio.DirEntry, error) {
	f, err := r.Open(safeio.Dir(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var es []safeio.DirEntry
	if d, derr := safeio.DirFDOf(f); derr == nil {
		es, err = d.Entries(make([]byte, 8<<10), nil)
		d.Close()
	} else if errors.Is(derr, errors.ErrUnsupported) {
		var des []fs.DirEntry
		des, err = f.ReadDir(-1)
		for _, e := range des {
			es = append(es, safeio.DirEntry{Name: e.Name(), Type: e.Type()})
		}
	} else {
		return nil, derr
	}
	slices.SortFunc(es, func(a, b safeio.DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return es, err
}

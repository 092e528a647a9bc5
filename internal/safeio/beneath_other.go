//go:build !unix

package safeio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// OpenDirBeneath off Unix checks each component with Lstat: a symlink
// swapped in between the check and the open is not seen.
func OpenDirBeneath(fsRoot, rel string, create bool) (*os.File, error) {
	parts, err := beneathParts(rel)
	if err != nil {
		return nil, err
	}
	p := fsRoot
	for _, name := range parts {
		p = filepath.Join(p, name)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) && create {
			if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, err
			}
			fi, err = os.Lstat(p)
		}
		if err != nil {
			return nil, err
		}
		if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 { // a junction is irregular on Windows
			target, _ := os.Readlink(p)
			return nil, &SymlinkError{Path: p, Target: target}
		}
		if !fi.IsDir() {
			return nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("not a directory")}
		}
	}
	return os.Open(filepath.Join(fsRoot, filepath.FromSlash(rel)))
}

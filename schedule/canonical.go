package schedule

import (
	"path/filepath"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// CanonicalStore returns the canonical package store path of an FS root:
// absolute, cleaned, symlinks resolved (as far as the path exists), so
// that /hab/pkgs, /hab/../hab/pkgs/ and a symlink to it are one store.
func CanonicalStore(fsRoot string) (string, error) {
	if err := pkgstore.RequireFSRoot(fsRoot); err != nil {
		return "", err
	}
	return canonicalPath(filepath.Join(fsRoot, "hab", "pkgs"))
}

// canonicalPath makes p absolute and clean and resolves the symlinks of
// its longest existing prefix; the rest is kept as written.
func canonicalPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	// Resolve the longest existing prefix, keep the rest as written.
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), nil
		}
		if p == filepath.Dir(p) {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

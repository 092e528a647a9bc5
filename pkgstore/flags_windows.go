//go:build windows

package pkgstore

// No O_DIRECTORY or O_NOFOLLOW on Windows: the store is read through
// os.Root, and what must not be followed is opened with
// FILE_OPEN_REPARSE_POINT (internal/safeio.OpenAt).
const (
	oDirectory = 0
	oNoFollow  = 0
)

// supported: Habitat's Windows stores (C:\hab\pkgs, DefaultFSRoot) are
// read through os.Root and internal/safeio, locked with LockFileEx and
// changed through internal/onefs.
func supported() error { return nil }

package pkgstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// ErrNoStore is wrapped by the error Open returns when the FS root or its
// package store cannot be used at all (missing, not a directory,
// unreadable). Open's error also wraps the file system's own, so that a
// caller tells the three apart: fs.ErrNotExist (not mounted yet, not
// installed), syscall.ENOTDIR, fs.ErrPermission.
var ErrNoStore = errors.New("no usable package store")

// InstallTempPrefix is the prefix of the directories Habitat unpacks into
// before renaming them into place. Habitat's listing skips them.
const InstallTempPrefix = ".hab-pkg-install"

// DebrisPrefix starts the names of the directories hab-gc hides releases
// under while removing them. It extends InstallTempPrefix, so Habitat's
// listing skips them.
const DebrisPrefix = InstallTempPrefix + "-hab-gc-"

// StoreDir is the package store's path under the FS root.
const StoreDir = "hab/pkgs"

// Store is an opened FS root with a package store under it. All reads of
// the store go through an os.Root opened at FSROOT/hab/pkgs, so nothing
// read can escape it.
type Store struct {
	fsRoot string
	pkgs   *os.Root
	lock   heldLock // the exclusive lock, while Lock's holder has it
}

// RequireFSRoot returns an error wrapping ErrNoStore for an empty FS
// root. The rule is the same in every package that takes one (pkgstore,
// lease, history, artifactcache, runroots): the FS root is named, "/" for
// the machine's own store; an empty one is an error, never the machine's
// store nor the working directory, so that an unset variable in a test or
// a program never reaches the real store.
func RequireFSRoot(fsRoot string) error {
	if fsRoot == "" {
		return fmt.Errorf("%w: the FS root is empty (name it: \"/\" for this machine's store)", ErrNoStore)
	}
	return nil
}

// Open opens the store under fsRoot (Habitat's FS_ROOT; "/" on a normal
// machine). It fails, wrapping ErrNoStore, when fsRoot is empty
// (RequireFSRoot), or fsRoot or fsRoot/hab/pkgs is missing, not a
// directory or unreadable; the error then also wraps the cause
// (fs.ErrNotExist, syscall.ENOTDIR, fs.ErrPermission).
func Open(fsRoot string) (*Store, error) {
	if err := supported(); err != nil {
		return nil, err
	}
	if err := RequireFSRoot(fsRoot); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(fsRoot)
	if err != nil {
		return nil, fmt.Errorf("%w: FS root %q: %w", ErrNoStore, fsRoot, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("%w: FS root %s: %w", ErrNoStore, abs, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%w: FS root %s is %w", ErrNoStore, abs, safeio.ErrNotDir) // "... is not a directory"
	}
	storePath := filepath.Join(abs, StoreDir)
	pkgs, err := safeio.OpenRoot(storePath)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNoStore, storePath, err)
	}
	if f, err := pkgs.Open("."); err != nil {
		pkgs.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrNoStore, storePath, err)
	} else {
		_, err := f.ReadDir(1)
		f.Close()
		if err != nil && !errors.Is(err, io.EOF) {
			pkgs.Close()
			return nil, fmt.Errorf("%w: %s is unreadable: %w", ErrNoStore, storePath, err)
		}
	}
	return &Store{fsRoot: abs, pkgs: pkgs}, nil
}

// Close releases the store's directory handle.
func (s *Store) Close() error { return s.pkgs.Close() }

// FSRoot returns the absolute FS root.
func (s *Store) FSRoot() string { return s.fsRoot }

// Path returns the absolute path of the package store (FSROOT/hab/pkgs).
func (s *Store) Path() string { return filepath.Join(s.fsRoot, StoreDir) }

// Usable returns nil for a Store Open made, else (nil, the zero Store, a
// closed one's fields never set) an error wrapping ErrNoStore: what
// takes a *Store refuses one it cannot use instead of panicking.
func (s *Store) Usable() error {
	if s == nil || s.pkgs == nil {
		return fmt.Errorf("%w: no store given (open one with pkgstore.Open)", ErrNoStore)
	}
	if _, err := s.pkgs.Lstat("."); errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("%w: the store of %s is closed", ErrNoStore, s.fsRoot)
	}
	return nil
}

// Root returns the os.Root opened at the package store. It stays owned by
// the Store.
func (s *Store) Root() *os.Root { return s.pkgs }

// HasUninstallHook reports whether a release ships hooks/uninstall. When
// that cannot be told (an error other than "not there"), it answers true:
// the caller then keeps the release.
func (s *Store) HasUninstallHook(id Ident) bool {
	_, err := s.pkgs.Lstat(id.String() + "/hooks/uninstall")
	return !errors.Is(err, fs.ErrNotExist)
}

// Size returns the bytes on disk of a release directory: the space
// allocated to everything in it on its own file system, hard links once,
// never following a symlink nor entering a mount point (what cannot be
// read is left out); -1 when it cannot be opened.
func (s *Store) Size(id Ident) int64 {
	r, err := s.pkgs.OpenRoot(safeio.Dir(id.String()))
	if err != nil {
		return -1
	}
	defer r.Close()
	return treeSize(r)
}

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

// ErrNoStore is wrapped, with the file system's own error, by Open's when
// the FS root or its store cannot be used at all.
var ErrNoStore = errors.New("no usable package store")

// InstallTempPrefix starts the directories Habitat unpacks into (its
// listing skips them).
const InstallTempPrefix = ".hab-pkg-install"

// DebrisPrefix starts the directories hab-gc hides releases in while
// removing them, so that Habitat's listing skips them.
const DebrisPrefix = InstallTempPrefix + "-hab-gc-"

// StoreDir is the package store's path under the FS root.
const StoreDir = "hab/pkgs"

// Store is an opened store, read through an os.Root at FSROOT/hab/pkgs.
type Store struct {
	fsRoot string
	pkgs   *os.Root
	lock   heldLock
}

// RequireFSRoot refuses an empty FS root (ErrNoStore) in every package that
// takes one, so that an unset variable never reaches the real store.
func RequireFSRoot(fsRoot string) error {
	if fsRoot == "" {
		return fmt.Errorf("%w: the FS root is empty (name it: \"/\" for this machine's store)", ErrNoStore)
	}
	return nil
}

// Open opens the store under fsRoot (Habitat's FS_ROOT; "/" on a normal
// machine).
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

func (s *Store) Close() error { return s.pkgs.Close() }

func (s *Store) FSRoot() string { return s.fsRoot }

func (s *Store) Path() string { return filepath.Join(s.fsRoot, StoreDir) }

// Usable refuses (ErrNoStore) a nil, zero or closed Store, so that callers
// return an error, not panic.
func (s *Store) Usable() error {
	if s == nil || s.pkgs == nil {
		return fmt.Errorf("%w: no store given (open one with pkgstore.Open)", ErrNoStore)
	}
	if _, err := s.pkgs.Lstat("."); errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("%w: the store of %s is closed", ErrNoStore, s.fsRoot)
	}
	return nil
}

// Root returns the Store's os.Root at the package store.
func (s *Store) Root() *os.Root { return s.pkgs }

// HasUninstallHook reports whether a release ships hooks/uninstall (true
// when that cannot be told).
func (s *Store) HasUninstallHook(id Ident) bool {
	_, err := s.pkgs.Lstat(id.String() + "/hooks/uninstall")
	return !errors.Is(err, fs.ErrNotExist)
}

// Size returns the bytes on disk of a release directory (see treeSize); -1
// when it cannot be opened.
func (s *Store) Size(id Ident) int64 {
	r, err := s.pkgs.OpenRoot(safeio.Dir(id.String()))
	if err != nil {
		return -1
	}
	defer r.Close()
	return treeSize(r)
}

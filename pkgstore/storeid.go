package pkgstore

import (
	"fmt"
)

// StoreID identifies a package store directory (FSROOT/hab/pkgs) by its
// device and inode, whatever path reached it: an Inventory records the
// store it was read from, so that a plan made from it is never carried
// out on another store.
type StoreID struct {
	Dev, Ino uint64
}

// IsZero reports whether the ID is unknown.
func (id StoreID) IsZero() bool { return id == StoreID{} }

func (id StoreID) String() string { return fmt.Sprintf("dev %d inode %d", id.Dev, id.Ino) }

// ID returns the store directory's identity, read on its open
// descriptor.
func (s *Store) ID() (StoreID, error) {
	f, err := s.pkgs.Open(".")
	if err != nil {
		return StoreID{}, fmt.Errorf("%s: %w", s.Path(), err)
	}
	defer f.Close()
	dev, ino, err := openFileID(f)
	if err != nil {
		return StoreID{}, fmt.Errorf("%s: %w", s.Path(), err)
	}
	return StoreID{Dev: dev, Ino: ino}, nil
}

package pkgstore

import (
	"fmt"
)

// MarkLocked sets the lock file's mode to the one it has (0600, which
// Lock gave it) through the descriptor of the exclusive lock this Store
// holds, never through its name. A watcher of the store directory
// (inotify, as package watch) reads it as an attribute change of LockFile
// (IN_ATTRIB, fsnotify.Chmod) queued after every event the kernel queued
// before it, so that once it has read that event it has read all that came
// earlier: a barrier. While the lock is held no one else makes that event
// (another Lock waiting changes the mode only when it is not 0600; the
// holder's own pid write is a modification). It fails wrapping
// ErrNotLocked when this Store does not hold the lock.
func (s *Store) MarkLocked() error {
	f := s.lock.get()
	if f == nil {
		return fmt.Errorf("marking the lock file: %w: Lock was not called, or its lock was released", ErrNotLocked)
	}
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("marking %s: %w", s.lockPath(), err)
	}
	return nil
}

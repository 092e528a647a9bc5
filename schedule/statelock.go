package schedule

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// stateDir opens the directory of the state file path as an os.Root,
// making it when missing. With fsRoot (Scheduler.StateRoot), no
// directory from fsRoot down may be a symlink (safeio.OpenRootBeneath);
// without, the directory is made and opened as given.
func stateDir(fsRoot, path string) (*os.Root, error) {
	dir := filepath.Dir(path)
	if fsRoot == "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		return os.OpenRoot(safeio.Dir(dir))
	}
	rel, err := filepath.Rel(fsRoot, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%w: state file %s is not below its FS root %s", ErrState, path, fsRoot)
	}
	r, err := safeio.OpenRootBeneath(fsRoot, filepath.ToSlash(rel), true)
	if err != nil {
		return nil, fmt.Errorf("%w: state file %s: %w", ErrState, path, err)
	}
	return r, nil
}

// DefaultStateLockTimeout is the wait for the state's lock when
// Scheduler.StateLockTimeout is zero.
const DefaultStateLockTimeout = 10 * time.Second

// ErrStateBusy is wrapped by the error of a state update that gave up
// waiting for the state's lock (held past Scheduler.StateLockTimeout).
var ErrStateBusy = errors.New("the schedule state's lock is held by another process")

// lockState takes the exclusive lock PATH.lock in root (PATH's
// directory), waiting for it at most wait.
func lockState(root *os.Root, path string, wait time.Duration) (unlock func() error, err error) {
	name := filepath.Base(path) + ".lock"
	f, err := safeio.OpenPrivate(root, name, os.O_RDWR|os.O_CREATE, safeio.IsEUID, true)
	if errors.Is(err, safeio.ErrUnsafe) {
		return nil, fmt.Errorf("%w: state lock: %v", ErrState, err)
	}
	if err != nil {
		return nil, fmt.Errorf("locking state %s: %w", path, err)
	}
	rc, err := f.SyscallConn()
	if err == nil {
		err = flockBounded(rc, wait)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking state %s: %w", path, err)
	}
	// The lock guards the state only if the name still leads to the
	// locked file.
	held, err1 := f.Stat()
	now, err2 := root.Lstat(name)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		f.Close()
		return nil, fmt.Errorf("%w: state lock %s was replaced while being locked; try again", ErrState, f.Name())
	}
	return f.Close, nil
}

package pkgstore

import (
	"context"
	"errors"
	"time"
)

// ReadLock takes the store's shared lock for a reader that may go on
// without it: RLock, waiting up to timeout, or, where the lock cannot be
// taken at all (ErrLockUnavailable: a read-only store, a user who may not
// create or open the lock file, a store reached through a symlink), no
// lock. unlock is always safe to call (it does nothing when no lock was
// taken); without is RLock's error when the reader goes on unlocked, for
// it to say so (a run in progress may then show as problems). Any other
// error (the lock held past timeout, ctx done, an unsafe lock file) is
// returned as err, with nothing held.
func (s *Store) ReadLock(ctx context.Context, timeout time.Duration) (unlock func() error, without, err error) {
	unlock, err = s.RLock(ctx, timeout)
	switch {
	case errors.Is(err, ErrLockUnavailable):
		return func() error { return nil }, err, nil
	case err != nil:
		return nil, nil, err
	}
	return unlock, nil, nil
}

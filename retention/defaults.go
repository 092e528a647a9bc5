package retention

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// DefaultLockTimeout is how long Apply waits for another hab-gc's lock
// on the store when ApplyOptions.LockTimeout is zero; the CLI's
// --lock-timeout and the scheduler default to it too.
const DefaultLockTimeout = 30 * time.Second

// NoLockWait makes Apply (and the scheduler) fail at once when the store
// is locked ("none" in the CLI and TOML).
const NoLockWait time.Duration = -1

// NoSettle skips the pause between hiding releases and the final check
// ("none"); the zero Settle is DefaultSettle.
const NoSettle time.Duration = -1

// ErrInvalidOptions is wrapped by ApplyOptions.Validate's errors (and so
// by Apply's, which then changes nothing).
var ErrInvalidOptions = errors.New("invalid apply options")

// Validate refuses a negative LockTimeout, Settle or Pace other than the
// named ones (NoLockWait, NoSettle, PaceAuto), and a Pace over MaxPace:
// one rule for every option of hab-gc's packages (docs/library.md, "Zero and negative values"). Apply calls it.
func (o ApplyOptions) Validate() error {
	if o.LockTimeout < 0 && o.LockTimeout != NoLockWait {
		return fmt.Errorf("%w: lock timeout %s is negative (0 waits DefaultLockTimeout, NoLockWait not at all)", ErrInvalidOptions, o.LockTimeout)
	}
	if o.Settle < 0 && o.Settle != NoSettle {
		return fmt.Errorf("%w: settle %s is negative (0 is DefaultSettle, NoSettle none)", ErrInvalidOptions, o.Settle)
	}
	if o.Pace < 0 && o.Pace != PaceAuto {
		return fmt.Errorf("%w: pace %s is negative (0 is full speed, PaceAuto paces by the latency seen)", ErrInvalidOptions, o.Pace)
	}
	if o.Pace > MaxPace {
		return fmt.Errorf("%w: pace %s is more than %s: no disk's latency is that high", ErrInvalidOptions, o.Pace, MaxPace)
	}
	return nil
}

// LockWait returns how long a LockTimeout setting waits: the zero value
// is DefaultLockTimeout, NoLockWait is no wait (and so, here, is any
// other negative value, which Validate refuses).
func LockWait(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultLockTimeout
	case d < 0:
		return 0
	}
	return d
}

// ErrOtherStore is returned by Apply for a plan made from another store
// than the one it is asked to change: nothing is touched.
var ErrOtherStore = errors.New("the plan was made for another store: refusing to apply it")

// checkStore refuses a store that is not the one the plan's inventory was
// read from (compared by device and inode of hab/pkgs).
func (p *Plan) checkStore(store *pkgstore.Store) error {
	id, err := store.ID()
	if err != nil {
		return err
	}
	if p.Inventory.Store.IsZero() || id != p.Inventory.Store {
		return fmt.Errorf("%w: planned for the store at %s (%s), asked to apply to %s (%s)",
			ErrOtherStore, filepath.Join(p.Inventory.FSRoot, pkgstore.StoreDir), p.Inventory.Store, store.Path(), id)
	}
	return nil
}

// ErrBadDuration is wrapped by ParseDuration's errors.
var ErrBadDuration = errors.New(`not a duration such as 90s, 10m or 2h, 0 (the default) or "none"`)

// ParseDuration reads a duration setting (min_age, lock_timeout) as the
// CLI and TOML files spell it, with the library's meaning of each value:
// "none" is none (returned as the setting's none constant: NoMinAge,
// NoLockWait), "0" or "0s" is the zero value (the default), anything else
// a Go duration of 0 or more ("90s", "2h").
func ParseDuration(s string, none time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "none" {
		return none, nil
	}
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: %w", s, ErrBadDuration)
	}
	return d, nil
}

package retention

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// DefaultLockTimeout is the zero LockTimeout, here and in the CLI.
const DefaultLockTimeout = 30 * time.Second

// NoLockWait fails at once when the store is locked ("none").
const NoLockWait time.Duration = -1

// NoSettle skips Apply's pause before its last check ("none").
const NoSettle time.Duration = -1

// ErrInvalidOptions is wrapped by ApplyOptions.Validate's errors.
var ErrInvalidOptions = errors.New("invalid apply options")

// Validate refuses a negative value other than the named ones
// (NoLockWait, NoSettle, PaceAuto), and a Pace over MaxPace.
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

// LockWait is how long a LockTimeout setting waits (negative: none).
func LockWait(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultLockTimeout
	case d < 0:
		return 0
	}
	return d
}

// ErrOtherStore: Apply was given a store other than the plan's.
var ErrOtherStore = errors.New("the plan was made for another store: refusing to apply it")

// checkStore compares the device and inode of hab/pkgs.
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

var ErrBadDuration = errors.New(`not a duration such as 90s, 10m or 2h, 0 (the default) or "none"`)

// ParseDuration reads a duration setting as the CLI spells it: "none" is
// none (the setting's none constant), "0" the default, else a Go duration
// of 0 or more.
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

package runroots

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hab-gc/hab-gc/internal/inuse"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// Mode is whether and how a run looks for the releases processes use
// (the CLI's runtime_roots). It is the processes' retention.RootFinder.
type Mode int

const (
	// ModeOn (the zero Mode) refuses a blind scan that write leases
	// cannot make up for (ErrBlind).
	ModeOn Mode = iota
	// ModeOff reads no process.
	ModeOff
	// ModeBestEffort goes on with what could be seen and checked.
	ModeBestEffort
)

// ErrBadMode is wrapped by ParseMode's errors.
var ErrBadMode = errors.New("invalid runtime-roots mode")

// ParseMode reads "best-effort", or true or false as strconv.ParseBool
// does, spaces around it ignored.
func ParseMode(s string) (Mode, error) {
	t := strings.TrimSpace(s)
	if t == "best-effort" {
		return ModeBestEffort, nil
	}
	on, err := strconv.ParseBool(t)
	if err != nil {
		return ModeOn, fmt.Errorf("%w %q: want true, false or best-effort", ErrBadMode, s)
	}
	if !on {
		return ModeOff, nil
	}
	return ModeOn, nil
}

// String spells the mode as ParseMode reads it.
func (m Mode) String() string {
	switch m {
	case ModeOn:
		return "true"
	case ModeOff:
		return "false"
	case ModeBestEffort:
		return "best-effort"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// FindRoots scans DefaultProcRoot (ModeOff finds nothing).
func (m Mode) FindRoots(ctx context.Context, inv *pkgstore.Inventory) (inuse.Found, error) {
	return finder{mode: m}.FindRoots(ctx, inv)
}

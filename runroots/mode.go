package runroots

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Mode is whether and how a run looks for the releases processes use,
// as a user says it (ParseMode; the CLI's runtime_roots).
type Mode int

const (
	// ModeOn reads the processes (the zero Mode): when some cannot be
	// seen whole and a write lease cannot check a release to remove
	// instead, Finder fails with ErrBlind.
	ModeOn Mode = iota
	// ModeOff reads no process: what processes use is not a root.
	ModeOff
	// ModeBestEffort reads the processes and goes on with what could be
	// seen and checked (Finder.BestEffort).
	ModeBestEffort
)

// ErrBadMode is wrapped by ParseMode's errors.
var ErrBadMode = errors.New("invalid runtime-roots mode")

// ParseMode reads a mode: "best-effort", or true or false as
// strconv.ParseBool reads them (1, t, TRUE, 0, f, False...); spaces
// around it are ignored. Anything else, "" included, is refused with an
// error wrapping ErrBadMode.
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

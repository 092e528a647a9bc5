package pressure

import (
	"errors"
	"fmt"
)

// ErrMaxWithoutMin is wrapped by ParseLimits's error when max-free is
// given without min-free: below min-free a run frees up to max-free, so
// max-free alone means nothing.
var ErrMaxWithoutMin = errors.New("max-free needs min-free")

// SettingError is ParseLimits's error: which setting is wrong ("min_free"
// or "max_free") and why (ErrMaxWithoutMin, or ParseSize's ErrBadSize).
type SettingError struct {
	Setting string
	Err     error
}

func (e *SettingError) Error() string { return fmt.Sprintf("%s: %v", e.Setting, e.Err) }
func (e *SettingError) Unwrap() error { return e.Err }

// ParseLimits reads the free-space limits as settings give them, nil for
// a setting that is not set. Neither set: nil limits, no error (no disk
// pressure: the whole plan runs). min_free alone: MaxFree is MinFree (a
// run under pressure frees up to min-free). max_free alone is refused
// (ErrMaxWithoutMin). A text ParseSize refuses is refused, naming its
// setting. MaxFree below MinFree is left to Limits.Check (when both are
// bytes) and Limits.Resolve, which needs the file system's size when
// either is a percentage.
func ParseLimits(minFree, maxFree *string) (*Limits, error) {
	if minFree == nil {
		if maxFree != nil {
			return nil, &SettingError{Setting: "max_free", Err: ErrMaxWithoutMin}
		}
		return nil, nil
	}
	var l Limits
	var err error
	if l.MinFree, err = ParseSize(*minFree); err != nil {
		return nil, &SettingError{Setting: "min_free", Err: err}
	}
	l.MaxFree = l.MinFree
	if maxFree != nil {
		if l.MaxFree, err = ParseSize(*maxFree); err != nil {
			return nil, &SettingError{Setting: "max_free", Err: err}
		}
	}
	return &l, nil
}

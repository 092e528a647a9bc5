package pressure

import (
	"errors"
	"fmt"
)

var ErrMaxWithoutMin = errors.New("max-free needs min-free")

// SettingError names the setting ParseLimits refused.
type SettingError struct {
	Setting string
	Err     error
}

func (e *SettingError) Error() string { return fmt.Sprintf("%s: %v", e.Setting, e.Err) }
func (e *SettingError) Unwrap() error { return e.Err }

// ParseLimits reads the settings, nil when not set: neither is nil
// limits (no pressure), min_free alone makes MaxFree MinFree, max_free
// alone is refused.
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

package pressure

import (
	"errors"
	"testing"
)

func TestParseLimits(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name             string
		minFree, maxFree *string
		want             *Limits
		setting          string // the SettingError's, "" for none
		is               error
	}{
		{name: "neither", want: nil},
		{name: "min alone frees up to itself", minFree: s("2GiB"), want: &Limits{MinFree: Size{Bytes: 2 << 30}, MaxFree: Size{Bytes: 2 << 30}}},
		{name: "both", minFree: s("500MB"), maxFree: s("10%"), want: &Limits{MinFree: Size{Bytes: 500e6}, MaxFree: Size{Percent: 10}}},
		{name: "max below min is left to Resolve", minFree: s("2GiB"), maxFree: s("1GiB"), want: &Limits{MinFree: Size{Bytes: 2 << 30}, MaxFree: Size{Bytes: 1 << 30}}},
		{name: "max alone", maxFree: s("5GiB"), setting: "max_free", is: ErrMaxWithoutMin},
		{name: "max alone, even empty", maxFree: s(""), setting: "max_free", is: ErrMaxWithoutMin},
		{name: "bad min", minFree: s("lots"), maxFree: s("5GiB"), setting: "min_free", is: ErrBadSize},
		{name: "empty min is set, and bad", minFree: s(""), setting: "min_free", is: ErrBadSize},
		{name: "bad max", minFree: s("2GiB"), maxFree: s("-1GiB"), setting: "max_free", is: ErrBadSize},
		{name: "percent above 100", minFree: s("101%"), setting: "min_free", is: ErrBadSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLimits(tt.minFree, tt.maxFree)
			if tt.setting == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
					t.Fatalf("limits %+v, want %+v", got, tt.want)
				}
				return
			}
			var se *SettingError
			if !errors.As(err, &se) || se.Setting != tt.setting || !errors.Is(err, tt.is) {
				t.Fatalf("error %v (%T), want a SettingError for %s wrapping %v", err, err, tt.setting, tt.is)
			}
			if got != nil {
				t.Fatalf("limits %+v with an error", got)
			}
		})
	}
}

package hart_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/hab-gc/hab-gc/hart"
	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestLimitsZeroAndNegative: the zero Limits reads as
// DefaultLimits does (it read nothing, and failed with ErrLimit); a
// negative bound is refused.
func TestLimitsZeroAndNegative(t *testing.T) {
	b := storetest.Archive{Ident: "core/redis/7.0.1/20220201000000"}.Bytes()
	for _, tc := range []struct {
		name string
		lim  hart.Limits
		want error
	}{
		{"zero", hart.Limits{}, nil},
		{"zero entries", hart.Limits{Unpacked: 1 << 20, Meta: 64 << 10}, nil},
		{"negative entries", hart.Limits{Entries: -1}, hart.ErrInvalidLimits},
		{"negative unpacked", hart.Limits{Unpacked: -1}, hart.ErrInvalidLimits},
		{"negative meta", hart.Limits{Meta: -1}, hart.ErrInvalidLimits},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := hart.Read(bytes.NewReader(b), tc.lim, hart.WantIdent)
			if tc.want == nil {
				if err != nil || a.Ident != "core/redis/7.0.1/20220201000000" {
					t.Fatalf("Read: %v, %+v", err, a)
				}
				return
			}
			if !errors.Is(err, tc.want) || !errors.Is(tc.lim.Validate(), tc.want) {
				t.Fatalf("Read: %v, want %v", err, tc.want)
			}
		})
	}
}

package schedule_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestPressureTableMessages: what a [pressure] table's bad limits say,
// word for word (they are read with pressure.ParseLimits and
// pressure.Limits.Check): the field, and the size's own error or the two
// sizes compared. A max_free below a min_free in bytes is refused when the
// definition is read; against a percentage, only when the job runs.
func TestPressureTableMessages(t *testing.T) {
	root := newEnv(t).store()
	for _, tt := range []struct {
		name, table, field, msg string
	}{
		{"max below min", "min_free = \"2GiB\"\nmax_free = \"1GiB\"", "pressure.max_free", "1.0 GiB is less than min_free 2.0 GiB"},
		{"bad min", "min_free = \"lots\"", "pressure.min_free", `invalid size "lots": want a size such as 500MB, 2GiB or 10%`},
		{"bad max", "min_free = \"1GiB\"\nmax_free = \"200%\"", "pressure.max_free", `invalid size "200%": a percentage must be more than 0 and at most 100`},
		{"negative min", "min_free = \"-1GiB\"", "pressure.min_free", `invalid size "-1GiB": want a size such as 500MB, 2GiB or 10%`},
		{"no min", "max_free = \"1GiB\"", "pressure.min_free", "missing: the free space below which to prune (2GiB, 500MB, 10%)"},
		{"max a percentage below min: read", "min_free = \"2GiB\"\nmax_free = \"1%\"", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := fmt.Sprintf("fs_root = %q\n[pressure]\n%s\nkeep_latest = 1\n", root, tt.table)
			_, err := schedule.ParseDefinition("d.toml", []byte(src))
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var de *schedule.DefinitionError
			if !errors.As(err, &de) || de.Field != tt.field || de.Msg != tt.msg {
				t.Fatalf("got %#v; want field %s, %q", err, tt.field, tt.msg)
			}
		})
	}
}

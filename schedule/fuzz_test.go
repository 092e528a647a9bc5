package schedule

import (
	"strings"
	"testing"
	"time"
)

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"@daily-random", "5 4 * * *", "*/15 * * * 1-5", "@annually-random", "@every 1h", "61 * * * *"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseSpec(s)
		if err != nil {
			return
		}
		expr := Resolve(spec, HashInput{Store: "/hab/pkgs", Type: Prune, Spec: spec.Canonical})
		c, err := NewCron(expr, nil)
		if err != nil {
			t.Fatalf("%q resolved to %q, which does not parse: %v", s, expr, err)
		}
		from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if n := c.Next(from); !n.IsZero() && !n.After(from) {
			t.Fatalf("Next(%v) = %v", from, n)
		}
	})
}

func FuzzParseDefinition(f *testing.F) {
	f.Add([]byte("fs_root = \"/\"\n[prune]\nschedule = \"@daily-random\"\nkeep_latest = 2\n"))
	f.Add([]byte("fs_root = \"/\"\n[check]\nschedule = \"5 4 * * *\"\n"))
	f.Add([]byte("created = \"x\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDefinition("f.toml", data)
		if err != nil {
			if !strings.Contains(err.Error(), "f.toml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if d.Name == "" || d.Store == "" || len(d.Jobs) == 0 {
			t.Fatalf("accepted an incomplete definition: %+v", d)
		}
	})
}

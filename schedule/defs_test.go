package schedule_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestCreatedAsTOMLDatetime: created may be a TOML datetime as well as a
// string; a datetime without a zone offset is refused.
func TestCreatedAsTOMLDatetime(t *testing.T) {
	root := newEnv(t).store()
	want := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct{ created, err string }{
		{`2026-01-02T00:00:00Z`, ""},
		{`2026-01-02T01:00:00+01:00`, ""},
		{`"2026-01-02T00:00:00Z"`, ""},
		{`2026-01-02T00:00:00`, "zone"},
		{`2026-01-02`, "zone"},
		{`42`, "RFC 3339"},
	} {
		t.Run(tt.created, func(t *testing.T) {
			d, err := schedule.ParseDefinition("d.toml", []byte(prune(root, "@daily-random", "created = "+tt.created)))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "field created") {
					t.Fatalf("got %v, want an error about %q", err, tt.err)
				}
				return
			}
			if err != nil || !d.Created.Equal(want) {
				t.Fatalf("got %v %v", d.Created, err)
			}
		})
	}
}

// TestExcludesNormalised: exclude lists that differ only in blanks, order
// or repetition are one job.
func TestExcludesNormalised(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	def := func(ex string) string {
		return fmt.Sprintf("fs_root = %q\n[prune]\nschedule = \"@daily-random\"\nkeep_latest = 2\nexclude = [%s]\n", root, ex)
	}
	e.write("a", def(`"core/redis", "core/nginx"`))
	e.write("b", def(`" core/redis", "core/nginx ", "core/redis"`))
	e.write("c", def(`"core/nginx", "core/redis"`))
	s := e.loaded()
	j := onlyJob(t, s)
	if strings.Join(j.Params.Exclude, ",") != "core/nginx,core/redis" {
		t.Fatalf("excludes %q", j.Params.Exclude)
	}
}

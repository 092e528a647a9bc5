package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestHourlyRandomEveryElapsedHour: an @hourly-random
// job runs once in every elapsed hour, also across both daylight-saving
// changes of its --timezone: when clocks go back, the repeated wall hour
// is an hour of its own (a cron job at minute M of every wall hour ran
// once in it, so two runs were two hours apart: an interval lost).
func TestHourlyRandomEveryElapsedHour(t *testing.T) {
	if _, err := time.LoadLocation("Europe/Berlin"); err != nil {
		t.Skip("no tzdata:", err)
	}
	for _, from := range []string{"2027-03-27T22:00:00Z", "2027-10-30T22:00:00Z"} {
		t.Run(from, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := execute([]string{"schedule", "next", "@hourly-random", "--store", testtool.TempDir(t), "--job", "check",
				"--timezone", "Europe/Berlin", "--now", from, "--count", "8"}, &out, &errb, func(k string) (string, bool) {
				if k == "HAB_GC_MACHINE_ID" {
					return "hourly-dst-test", true
				}
				return "", false
			})
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 9 {
				t.Fatalf("want the expression and 8 times:\n%s", out.String())
			}
			var prev time.Time
			for _, l := range lines[1:] {
				tm, err := time.Parse(time.RFC3339, l)
				if err != nil {
					t.Fatal(err)
				}
				if !prev.IsZero() && tm.Sub(prev) != time.Hour {
					t.Errorf("%s is %s after the run before; want an hour:\n%s", l, tm.Sub(prev), out.String())
				}
				prev = tm
			}
		})
	}
}

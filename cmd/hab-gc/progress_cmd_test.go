//go:build linux

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestProgressCommands: every long command shows its phases on a
// terminal stderr: run (dry or not) and list the scan and the planning,
// check its scan; with --json, or on a stderr that is not a terminal,
// nothing is drawn.
func TestProgressCommands(t *testing.T) {
	t.Parallel()
	store := func(t *testing.T) string {
		b := storetest.New(t)
		b.Pkg("core/app/1.0.0/20200101000000")
		b.Pkg("core/app/2.0.0/20210101000000")
		return b.Root
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string // nil: nothing drawn
	}{
		{"run dry", []string{"run", "--dry-run", "--keep-latest=1", "--min-age=none"}, []string{"scanning", "planning"}},
		{"run", []string{"run", "--keep-latest=1", "--min-age=none"}, []string{"scanning", "planning", "deleting"}},
		{"list", []string{"list", "--keep-latest=1"}, []string{"scanning", "planning"}},
		{"check", []string{"check"}, []string{"scanning"}},
		{"run dry json", []string{"run", "--dry-run", "--keep-latest=1", "--json"}, nil},
		{"list json", []string{"list", "--json"}, nil},
		{"check json", []string{"check", "--json"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args, "--fs-root", store(t))
			ptm, pts := openPTY(t)
			var out bytes.Buffer
			if code := execute(args, &out, pts, noEnv); code != 0 {
				t.Fatalf("%v: exit %d; stdout %s; terminal %q", args, code, out.String(), drawn(t, ptm))
			}
			got := drawn(t, ptm)
			if tc.want == nil && (strings.Contains(got, "\x1b[K") || strings.Contains(got, "scanning")) {
				t.Errorf("%v drew %q on the terminal; want no progress", args, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%v drew %q on the terminal; want %q in it", args, got, w)
				}
			}
			var errb bytes.Buffer
			if code := execute(args, &out, &errb, noEnv); code != 0 || strings.Contains(errb.String(), "\x1b[K") {
				t.Errorf("%v on a stderr that is not a terminal: exit %d, stderr %q; want no progress", args, code, errb.String())
			}
		})
	}
}

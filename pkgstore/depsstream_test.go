package pkgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestScanStreamsOverLimitDeps: a DEPS or TDEPS over the read limit is
// read line by line: the release is damaged (one blocking problem that
// gives the size, what it names and its bad lines), its Deps or TDeps are
// the distinct releases it names, and what it needs is known. Beyond the
// streaming caps (bytes read, bytes of distinct idents kept), what it
// needs is unknown (DepsUnknown) unless the other file names something.
// The same holds for a directory Habitat lists that hab-gc cannot read as
// a release (Opaque).
func TestScanStreamsOverLimitDeps(t *testing.T) {
	const (
		app  = "core/app/1.0/20200101000000"
		lib  = "core/lib/1.0/20200101000000"
		gone = "core/gone/1.0/20200101000000"
	)
	line := lib + "\n"
	big := strings.Repeat(line, (1100<<10)/len(line)) + "not an ident\n" + gone + "\r\n" + strings.Repeat("x", 100<<10) + "\n" + lib
	var distinct strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&distinct, "core/n%d/1.0/20200101000000\n", i)
	}
	tests := []struct {
		name       string
		file       string
		body       string
		other      string // the other file's content
		opts       func(pkgstore.Options) pkgstore.Options
		unknown    bool
		names      int // distinct releases named (when known)
		says       string
		opaqueName bool // the release's version name has a space
	}{
		{"DEPS", "DEPS", big, "", nil, false, 2, fmt.Sprintf("names 2 distinct releases, each kept, and 2 lines that are not valid package idents (the first: line %d)", (1100<<10)/len(line)+1), false},
		{"TDEPS", "TDEPS", big, "", nil, false, 2, "names 2 distinct releases", false},
		{"DEPS, distinct idents", "DEPS", distinct.String(), "", nil, false, 40000, "names 40000 distinct releases", false},
		{"DEPS beyond the stream limit", "DEPS", big, "", func(o pkgstore.Options) pkgstore.Options {
			return pkgstore.WithStreamLimits(o, 1<<20+100, 0)
		}, true, 0, "more than the 1048676 bytes hab-gc reads line by line: not read, so what this release needs is unknown", false},
		{"TDEPS beyond the stream limit, DEPS names lib", "TDEPS", big, lib, func(o pkgstore.Options) pkgstore.Options {
			return pkgstore.WithStreamLimits(o, 1<<20+100, 0)
		}, false, 1, "hab-gc reads line by line: not read", false},
		{"DEPS beyond the idents kept", "DEPS", distinct.String(), "", func(o pkgstore.Options) pkgstore.Options {
			return pkgstore.WithStreamLimits(o, 0, 100<<10)
		}, true, 0, "names more than 102400 bytes of distinct releases", false},
		{"opaque, DEPS", "DEPS", big, "", nil, false, 2, "names 2 distinct releases", true},
		{"opaque, DEPS beyond the stream limit", "DEPS", big, "", func(o pkgstore.Options) pkgstore.Options {
			return pkgstore.WithStreamLimits(o, 1<<20+100, 0)
		}, true, 0, "hab-gc reads line by line", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := storetest.New(t).Pkg(lib)
			id := app
			if tt.opaqueName {
				id = "core/app/1.0 rc1/20200101000000"
			}
			b.Pkg(id)
			dir := "hab/pkgs/" + id + "/"
			other := map[string]string{"DEPS": "TDEPS", "TDEPS": "DEPS"}[tt.file]
			b.File(dir+tt.file, tt.body).File(dir+other, tt.other)
			opts := pkgstore.Options{Target: "x86_64-linux"}
			if tt.opts != nil {
				opts = tt.opts(opts)
			}
			inv, err := pkgstore.Scan(context.Background(), b.Root, opts)
			if err != nil {
				t.Fatal(err)
			}
			var msgs []string
			for _, p := range inv.Problems {
				if p.Path == dir+tt.file {
					msgs = append(msgs, p.Message)
					if p.Kind != pkgstore.ProblemDeps || !p.Blocking {
						t.Errorf("problem %v: want blocking %s", p, pkgstore.ProblemDeps)
					}
				}
			}
			if len(msgs) != 1 || !strings.Contains(msgs[0], tt.says) || len(msgs[0]) > 300 {
				t.Errorf("problems for %s: %q; want one saying %q", tt.file, msgs, tt.says)
			}
			var named []string
			var unknown bool
			if tt.opaqueName {
				if len(inv.Opaque) != 1 {
					t.Fatalf("opaque: %+v; want one", inv.Opaque)
				}
				for _, d := range inv.Opaque[0].Deps {
					named = append(named, d.String())
				}
				unknown = inv.Opaque[0].DepsUnknown
			} else {
				r := inv.Installed(pkgstore.MustParseIdent(app))
				if r == nil || !r.Damaged {
					t.Fatalf("%s: %+v; want installed and damaged", app, r)
				}
				for _, d := range append(r.Deps, r.TDeps...) {
					named = append(named, inv.Ident(d).String())
				}
				unknown = r.DepsUnknown
			}
			if unknown != tt.unknown {
				t.Errorf("DepsUnknown %v, want %v", unknown, tt.unknown)
			}
			first := lib
			if tt.body == distinct.String() {
				first = "core/n0/1.0/20200101000000"
			}
			if !tt.unknown && (len(named) != tt.names || named[0] != first) {
				t.Errorf("named %d releases (%.3q...); want %d, %s first", len(named), named[:min(len(named), 3)], tt.names, first)
			}
		})
	}
}

package hart_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/hart"
	"github.com/hab-gc/hab-gc/internal/storetest"
)

// FuzzRead: any input is read within the bounds, fails wrapping
// ErrNotHart or ErrLimit, or gives an IDENT that is the release directory
// of its entry and metadata lines without newlines.
func FuzzRead(f *testing.F) {
	f.Add(storetest.Archive{Ident: "core/redis/6.2.5/20211101000000", Deps: []string{"core/glibc/2.35/20220101000000"}}.Bytes())
	f.Add(storetest.Archive{Ident: "happyhumans/possums/8.1.4/20160427165340", Parents: true, Prefix: "opt/", MetaLast: true, Payload: []string{"share/x"}}.Bytes())
	f.Add(storetest.HartOf("hab/pkgs/a/b/1/20200101000000/", "etc/passwd"))
	f.Add(append([]byte(storetest.HartHeader), "\xfd7zXZ\x00"...))
	lim := hart.Limits{Unpacked: 1 << 20, Entries: 1000, Meta: 64 << 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, want := range []hart.Want{hart.WantIdent, hart.WantDeps} {
			a, err := hart.Read(bytes.NewReader(data), lim, want)
			if err != nil {
				if !errors.Is(err, hart.ErrNotHart) && !errors.Is(err, hart.ErrLimit) {
					t.Fatalf("error %v wraps neither ErrNotHart nor ErrLimit", err)
				}
				continue
			}
			parts := strings.Split(a.Ident, "/")
			if len(parts) != 4 || strings.ContainsAny(a.Ident, "\n\r") {
				t.Fatalf("IDENT %q", a.Ident)
			}
			for _, l := range append(a.Deps, a.TDeps...) {
				if l == "" || strings.ContainsAny(l, "\n") {
					t.Fatalf("line %q", l)
				}
			}
		}
	})
}

func TestMetaPath(t *testing.T) {
	for _, tt := range []struct {
		name, rel, file string
		ok              bool
	}{
		{"hab/pkgs/a/b/1/2/IDENT", "a/b/1/2", "IDENT", true},
		{"/hab/pkgs/a/b/1/2/TDEPS", "a/b/1/2", "TDEPS", true},
		{"opt/hab/pkgs/a/b/1/2/BUILD_DEPS", "a/b/1/2", "BUILD_DEPS", true},
		{"hab/pkgs/a/b/1/2/bin/IDENT", "", "", false},
		{"hab/pkgs/a/b/1/IDENT", "", "", false},
		{"hab/pkgs/a/../1/2/IDENT", "", "", false},
		{"hab/pkgs/a/b/1/2/default.toml", "", "", false},
		{"x/hab/pkgs/a/b/1/2/IDENT", "", "", false},
		{"hab", "", "", false},
	} {
		rel, file, ok := hart.MetaPath(tt.name)
		if rel != tt.rel || file != tt.file || ok != tt.ok {
			t.Errorf("MetaPath(%q) = %q %q %v", tt.name, rel, file, ok)
		}
	}
}

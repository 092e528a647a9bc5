package retention_test

import (
	"errors"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestParsePin: a pin is ParseExclude's, but a glob in its ident is
// refused with ErrWildcard (in a constraint it is ParseExclude's to judge).
func TestParsePin(t *testing.T) {
	for _, tt := range []struct {
		in       string
		wildcard bool
		bad      bool
	}{
		{in: "core/redis"},
		{in: "core/redis/6.2.6"},
		{in: "core/postgresql@>=11 <12"},
		{in: "core/*", wildcard: true},
		{in: "core/redis?", wildcard: true},
		{in: "core/[ab]@>=1", wildcard: true},
		{in: "core", bad: true},
		{in: "core/redis@", bad: true},
		{in: "core/redis@*", bad: false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			ex, err := retention.ParsePin(tt.in)
			if got := errors.Is(err, retention.ErrWildcard); got != tt.wildcard {
				t.Fatalf("ParsePin(%q): %v; want ErrWildcard %v", tt.in, err, tt.wildcard)
			}
			if tt.wildcard {
				if err.Error() != `"`+tt.in+`": `+retention.ErrWildcard.Error() {
					t.Errorf("message %q", err)
				}
				return
			}
			want, werr := retention.ParseExclude(tt.in)
			if (err != nil) != tt.bad || (werr != nil) != tt.bad {
				t.Fatalf("ParsePin(%q): %v, ParseExclude: %v; want an error %v", tt.in, err, werr, tt.bad)
			}
			if err != nil {
				if err.Error() != werr.Error() {
					t.Errorf("ParsePin's error %q, ParseExclude's %q", err, werr)
				}
				return
			}
			if ex.Raw != want.Raw || ex.Pattern != want.Pattern || (ex.Constraint == nil) != (want.Constraint == nil) {
				t.Errorf("ParsePin(%q) = %+v, want %+v", tt.in, ex, want)
			}
		})
	}
}

// TestParseOnly: ORIGIN/NAME and ORIGIN/NAME/VERSION; a glob is
// ErrWildcard, a release or a malformed ident ErrNotPackage.
func TestParseOnly(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want pkgstore.Ident
		err  error
	}{
		{in: "core/redis", want: pkgstore.Ident{Origin: "core", Name: "redis"}},
		{in: "core/redis/6.2.6", want: pkgstore.Ident{Origin: "core", Name: "redis", Version: "6.2.6"}},
		{in: "core/redis/6.2.6/20210603120000", err: retention.ErrNotPackage},
		{in: "core", err: retention.ErrNotPackage},
		{in: "core/../x", err: retention.ErrNotPackage},
		{in: "core/*", err: retention.ErrWildcard},
		{in: "*/redis/6", err: retention.ErrWildcard},
		// A constraint is a pin's (core/redis@>=6); --only's package name
		// would be "redis@>=6", which Habitat's names cannot be.
		{in: "core/redis@>=6", err: retention.ErrNotPackage},
		{in: "core/re dis", err: retention.ErrNotPackage},
		{in: "core/redis.x", err: retention.ErrNotPackage},
		{in: "core/Redis_2-x", want: pkgstore.Ident{Origin: "core", Name: "Redis_2-x"}},
	} {
		t.Run(tt.in, func(t *testing.T) {
			id, err := retention.ParseOnly(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("ParseOnly(%q) = %v, %v; want %v", tt.in, id, err, tt.err)
				}
				if tt.err == retention.ErrWildcard && errors.Is(err, retention.ErrNotPackage) {
					t.Errorf("a glob is both errors: %v", err)
				}
				return
			}
			if err != nil || id != tt.want {
				t.Fatalf("ParseOnly(%q) = %+v, %v; want %+v", tt.in, id, err, tt.want)
			}
		})
	}
}

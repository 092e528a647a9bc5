package retention_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestWhyAll: a full ident is its one release; a package or a version
// every release of it, newest first, each Why's explanation; nothing
// installed is ErrNotInstalled.
func TestWhyAll(t *testing.T) {
	b := storetest.New(t).
		Pkg("core/lib/1.0.0/20200101000000").
		Pkg("core/lib/1.0.0/20210101000000").
		Pkg("core/lib/2.0.0/20220101000000").
		Pkg("core/app/1.0.0/20220101000000", "core/lib/1.0.0/20200101000000")
	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, nil, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   string
		want []string
	}{
		{"core/lib/1.0.0/20200101000000", []string{"core/lib/1.0.0/20200101000000"}},
		{"core/lib", []string{"core/lib/2.0.0/20220101000000", "core/lib/1.0.0/20210101000000", "core/lib/1.0.0/20200101000000"}},
		{"core/lib/1.0.0", []string{"core/lib/1.0.0/20210101000000", "core/lib/1.0.0/20200101000000"}},
	} {
		t.Run(tt.id, func(t *testing.T) {
			exs, err := p.WhyAll(pkgstore.MustParseIdent(tt.id))
			if err != nil {
				t.Fatal(err)
			}
			if len(exs) != len(tt.want) {
				t.Fatalf("%d explanations, want %v", len(exs), tt.want)
			}
			for i, ex := range exs {
				id := pkgstore.MustParseIdent(tt.want[i])
				if got := ex.Decision.Release.Ident; got != id {
					t.Errorf("explanation %d is of %s, want %s", i, got, id)
				}
				one, err := p.Why(id)
				if err != nil || one.Decision.Action != ex.Decision.Action || len(one.Chain) != len(ex.Chain) {
					t.Errorf("%s: %+v, Why says %+v (%v)", id, ex, one, err)
				}
			}
		})
	}
	for _, id := range []string{"core/nope", "core/lib/3.0.0", "core/lib/1.0.0/20990101000000"} {
		if _, err := p.WhyAll(pkgstore.MustParseIdent(id)); !errors.Is(err, retention.ErrNotInstalled) {
			t.Errorf("WhyAll(%s): %v, want ErrNotInstalled", id, err)
		}
	}
}

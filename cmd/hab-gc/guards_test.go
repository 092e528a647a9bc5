package main

import (
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestKeepsNoneStoreWide: only a keep of none that nothing limits.
func TestKeepsNoneStoreWide(t *testing.T) {
	redis := pkgstore.Ident{Origin: "core", Name: "redis"}
	for _, tt := range []struct {
		name string
		p    retention.Policy
		want bool
	}{
		{"keep none", retention.Policy{KeepLatest: retention.KeepNone}, true},
		{"keep none, pins", retention.Policy{KeepLatest: retention.KeepNone, Excludes: []retention.Exclude{{Pattern: redis}}}, true},
		{"keep none, only", retention.Policy{KeepLatest: retention.KeepNone, Only: []pkgstore.Ident{redis}}, false},
		{"keep none, services only", retention.Policy{KeepLatest: retention.KeepNone, ServicesOnly: true}, false},
		{"keep 1", retention.Policy{KeepLatest: 1}, false},
		{"unset", retention.Policy{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := keepsNoneStoreWide(tt.p); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestInProgressAge: 0 is the default minimum age, NoMinAge none, a
// positive age itself.
func TestInProgressAge(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{
		0:                  retention.DefaultMinAge,
		retention.NoMinAge: 0,
		10 * time.Minute:   10 * time.Minute,
		3 * time.Hour:      3 * time.Hour,
	} {
		if got := inProgressAge(in); got != want {
			t.Errorf("inProgressAge(%v) = %v, want %v", in, got, want)
		}
	}
}

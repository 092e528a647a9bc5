package pressure

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// planOf builds a store: core/redis with four releases (the three old
// ones removable), core/lib with two, the old one needed only by the
// oldest redis, and plans keep_latest=1 with sizes measured.
func planOf(t *testing.T) *retention.Plan {
	t.Helper()
	big := strings.Repeat("x", 64<<10)
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: "core/lib/1.0/20200101000000", Files: map[string]string{"blob": big}})
	b.Add(storetest.Release{Ident: "core/lib/2.0/20210101000000", Files: map[string]string{"blob": big}})
	b.Add(storetest.Release{Ident: "core/redis/1.0/20200101000000", Deps: []string{"core/lib/1.0/20200101000000"}, Files: map[string]string{"blob": big}})
	for _, id := range []string{"core/redis/2.0/20200201000000", "core/redis/3.0/20200301000000", "core/redis/4.0/20200401000000"} {
		b.Add(storetest.Release{Ident: id, Deps: []string{"core/lib/2.0/20210101000000"}, Files: map[string]string{"blob": big}})
	}
	st, err := pkgstore.Open(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	inv, err := st.Scan(context.Background(), pkgstore.Options{Target: storetest.DefaultTarget, Sizes: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, nil, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func removed(p *retention.Plan) map[string]string {
	out := map[string]string{}
	for _, d := range p.Decisions {
		for _, r := range d.Reasons {
			if r.Code == CodePressure {
				out[d.Release.Ident.String()] = r.Text
			}
		}
	}
	return out
}

func TestLimit(t *testing.T) {
	one := planOf(t).Removals()[0].Release.Size // every release has the same size
	if one <= 64<<10 {
		t.Fatalf("release size %d: not measured as allocated", one)
	}
	for _, tc := range []struct {
		name        string
		avail       int64
		min, max    Size
		want        []string // removed, in any order
		wantText    map[string]string
		reached     bool
		under       bool
		untouchedBy string
	}{
		{name: "above min-free", avail: 10 * one, min: Size{Bytes: 5 * one}, max: Size{Bytes: 20 * one}, reached: true},
		{name: "one is enough", avail: 0, min: Size{Bytes: one}, max: Size{Bytes: one}, under: true, reached: true,
			// redis/1.0 is 3 behind; it needs lib/1.0 but nothing removed needs redis/1.0.
			want:     []string{"core/redis/1.0/20200101000000"},
			wantText: map[string]string{"core/redis/1.0/20200101000000": "removed to reach max-free " + humanize.Bytes(one) + ": the oldest of core/redis (3 newer installed; 1st in pressure order)"}},
		{name: "two in order", avail: one / 2, min: Size{Bytes: one}, max: Size{Bytes: 2 * one}, under: true, reached: true,
			want:     []string{"core/redis/1.0/20200101000000", "core/redis/2.0/20200201000000"},
			wantText: map[string]string{"core/redis/2.0/20200201000000": "2nd oldest of core/redis (2 newer installed; 2nd in pressure order)"}},
		{name: "percent", avail: 0, min: Size{Percent: 25}, max: Size{Percent: 50}, under: true, reached: true,
			want: []string{"core/redis/1.0/20200101000000", "core/redis/2.0/20200201000000"}},
		{name: "not enough", avail: 0, min: Size{Bytes: one}, max: Size{Bytes: 100 * one}, under: true, reached: false,
			want: []string{"core/redis/1.0/20200101000000", "core/redis/2.0/20200201000000", "core/redis/3.0/20200301000000", "core/lib/1.0/20200101000000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := planOf(t)
			keptBefore := map[string]bool{}
			for _, d := range p.Keeps() {
				keptBefore[d.Release.Ident.String()] = true
			}
			total := 4 * one
			v, err := Limit(p, Space{Avail: tc.avail, Total: total}, Limits{MinFree: tc.min, MaxFree: tc.max}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if v.Reached != tc.reached || v.Under != tc.under {
				t.Fatalf("verdict %+v; want reached %v under %v", v, tc.reached, tc.under)
			}
			got := removed(p)
			if len(got) != len(tc.want) || len(p.Removals()) != len(tc.want) {
				t.Fatalf("removed %v (removals %d), want %v", got, len(p.Removals()), tc.want)
			}
			for _, w := range tc.want {
				if _, ok := got[w]; !ok {
					t.Errorf("%s not removed; removed %v", w, got)
				}
			}
			for id, text := range tc.wantText {
				if !strings.Contains(got[id], text) {
					t.Errorf("%s: reason %q, want it to contain %q", id, got[id], text)
				}
			}
			for _, d := range p.Removals() {
				if keptBefore[d.Release.Ident.String()] {
					t.Errorf("%s: kept by the policy, removed under pressure", d.Release.Ident)
				}
			}
			var freed int64
			for _, d := range p.Removals() {
				freed += d.Release.Size
			}
			if max := tc.max.Of(total); !tc.reached && v.Short != max-tc.avail-freed {
				t.Errorf("short %d, want %d", v.Short, max-tc.avail-freed)
			}
		})
	}
}

func TestLimitRefusesMaxBelowMin(t *testing.T) {
	p := planOf(t)
	if _, err := Limit(p, Space{Avail: 0, Total: 100}, Limits{MinFree: Size{Bytes: 50}, MaxFree: Size{Bytes: 10}}, 0); err == nil {
		t.Fatal("max-free below min-free accepted")
	}
}

func TestLargestKept(t *testing.T) {
	p := planOf(t)
	if _, err := Limit(p, Space{Avail: 0, Total: 100}, Limits{MinFree: Size{Bytes: 1}, MaxFree: Size{Bytes: 1}}, 0); err != nil {
		t.Fatal(err)
	}
	for _, d := range LargestKept(p, 10) {
		if keptByPressure(d) {
			t.Errorf("%s: kept only by pressure, listed among the largest kept", d.Release.Ident)
		}
	}
	if n := len(LargestKept(p, 1)); n != 1 {
		t.Errorf("LargestKept(1) gave %d", n)
	}
}

// TestLimitsNegative: no size of Limits has a "none"
// below zero: a negative one, or a percentage outside 0-100, is refused;
// the zero Limits is never under pressure.
func TestLimitsNegative(t *testing.T) {
	for _, l := range []Limits{
		{MinFree: Size{Bytes: -1}, MaxFree: Size{Bytes: 10}},
		{MaxFree: Size{Bytes: -1}},
		{MinFree: Size{Percent: -5}, MaxFree: Size{Bytes: 10}},
		{MaxFree: Size{Percent: 150}},
	} {
		if _, _, err := l.Resolve(1 << 30); !errors.Is(err, ErrBadLimits) {
			t.Errorf("%+v: %v, want ErrBadLimits", l, err)
		}
	}
	lo, hi, err := Limits{}.Resolve(1 << 30)
	if err != nil || lo != 0 || hi != 0 {
		t.Fatalf("zero Limits: %d %d %v", lo, hi, err)
	}
}

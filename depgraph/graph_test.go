package depgraph_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

const (
	glibc   = "core/glibc/2.35/20220101000000"
	openssl = "core/openssl/1.1.1/20220101000000"
	redis   = "core/redis/6.2.6/20220101000000"
	app     = "acme/app/1.0.0/20220101000000"
	gone    = "core/gone/1.0/20190101000000"
)

func build(t *testing.T) (*pkgstore.Inventory, *depgraph.Graph) {
	t.Helper()
	b := storetest.New(t).
		Pkg(glibc).
		Pkg(openssl, glibc).
		Pkg(redis, openssl).
		Add(storetest.Release{Ident: app, Deps: []string{redis}, TDeps: []string{redis, openssl, gone}})
	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	return inv, depgraph.New(inv)
}

func ref(t *testing.T, inv *pkgstore.Inventory, s string) pkgstore.Ref {
	t.Helper()
	r, ok := inv.Lookup(pkgstore.MustParseIdent(s))
	if !ok {
		t.Fatalf("%s not in inventory", s)
	}
	return r
}

func names(inv *pkgstore.Inventory, rs []pkgstore.Ref) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, inv.Ident(r).String())
	}
	slices.Sort(out)
	return out
}

func TestClosures(t *testing.T) {
	inv, g := build(t)
	tests := []struct {
		name string
		got  []pkgstore.Ref
		want []string
	}{
		{"closure of app (DEPS and TDEPS union, missing dep included)", g.Closure(ref(t, inv, app)), []string{glibc, openssl, redis, gone}},
		{"closure of glibc", g.Closure(ref(t, inv, glibc)), []string{}},
		{"reverse closure of glibc", g.ReverseClosure(ref(t, inv, glibc)), []string{app, openssl, redis}},
		{"reverse closure of app", g.ReverseClosure(ref(t, inv, app)), []string{}},
		{"direct deps of redis", g.Deps(ref(t, inv, redis)), []string{glibc, openssl}},
		{"dependents of openssl", g.Dependents(ref(t, inv, openssl)), []string{app, redis}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if got := names(inv, tt.got); !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
	if g.Installed(ref(t, inv, gone)) {
		t.Error("a missing dependency is flagged installed")
	}
}

func TestReachChains(t *testing.T) {
	inv, g := build(t)
	r := g.Reach([]pkgstore.Ref{ref(t, inv, redis)})
	if r.Reached(ref(t, inv, app)) {
		t.Fatal("app is not reachable from redis")
	}
	chain := r.Chain(ref(t, inv, glibc))
	// redis names glibc in its TDEPS, so the shortest chain is direct.
	if got := names(inv, chain); !slices.Equal(got, []string{glibc, redis}) || chain[0] != ref(t, inv, redis) {
		t.Fatalf("chain = %v", got)
	}
	if !r.IsRoot(ref(t, inv, redis)) || r.IsRoot(ref(t, inv, glibc)) {
		t.Fatal("roots misreported")
	}
	r.Extend([]pkgstore.Ref{ref(t, inv, app)})
	if !r.Reached(ref(t, inv, gone)) {
		t.Fatal("extend did not mark app's closure")
	}
}

func TestExports(t *testing.T) {
	inv, g := build(t)
	dot, err := g.DOT(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := string(dot)
	for _, want := range []string{`"acme/app/1.0.0/20220101000000" -> "core/redis/6.2.6/20220101000000"`, `style=dashed`, "digraph habitat"} {
		if !strings.Contains(s, want) {
			t.Errorf("DOT lacks %q:\n%s", want, s)
		}
	}
	sub, err := g.DOT([]pkgstore.Ref{ref(t, inv, openssl)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sub), "redis") || !strings.Contains(string(sub), "glibc") {
		t.Errorf("closure DOT wrong:\n%s", sub)
	}
	js, err := g.JSON([]pkgstore.Ref{ref(t, inv, redis)})
	if err != nil {
		t.Fatal(err)
	}
	var jg depgraph.JSONGraph
	if err := json.Unmarshal(js, &jg); err != nil {
		t.Fatal(err)
	}
	if len(jg.Nodes) != 3 || len(jg.Edges) != 3 {
		t.Fatalf("JSON closure of redis: %s", js)
	}
}

// TestReverseEdgesConcurrently: the reverse edges are built at the first
// call that needs them; the graph stays safe for concurrent reads then
// (run with -race), and every reader sees them whole.
func TestReverseEdgesConcurrently(t *testing.T) {
	inv, g := build(t)
	want := []string{app, openssl, redis}
	slices.Sort(want)
	errs := make(chan string, 8)
	for range 8 {
		go func() {
			got := names(inv, g.ReverseClosure(ref(t, inv, glibc)))
			if !slices.Equal(got, want) {
				errs <- strings.Join(got, ",")
				return
			}
			errs <- ""
		}()
	}
	for range 8 {
		if e := <-errs; e != "" {
			t.Errorf("reverse closure of glibc read concurrently: %s, want %v", e, want)
		}
	}
	if e := g.Edges(); e != 6 {
		t.Errorf("Edges() = %d, want 6 (glibc<-openssl, openssl<-redis, glibc<-redis, redis<-app, openssl<-app, gone<-app)", e)
	}
}

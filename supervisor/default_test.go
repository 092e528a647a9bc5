package supervisor_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/supervisor"
)

// TestDefaultFinder: the gateway asked when none is configured never
// fails the plan. Where nothing answers it finds nothing and says so (the
// Supervisor's PID files tell); where something answers but does not say
// what the services run (it hangs, refuses, answers garbage), every
// release each loaded service's spec allows is kept; a gateway that names
// another release than the one running only adds a root: hab-gc keeps
// more, never less.
func TestDefaultFinder(t *testing.T) {
	t.Parallel()
	inv := pkgstore.NewInventory("/", "x86_64-linux", []pkgstore.ReleaseInfo{
		{Ident: pkgstore.MustParseIdent("core/redis/6.2.5/20200101000000")},
		{Ident: pkgstore.MustParseIdent("core/redis/6.2.6/20210603120000")},
		{Ident: pkgstore.MustParseIdent("core/nginx/1.25/20240101000000")},
	})
	inv.AddService("redis", pkgstore.MustParseIdent("core/redis"))

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nothing := "http://" + closed.Addr().String() + "/services"
	closed.Close()
	for _, tc := range []struct {
		name      string
		url       string
		summary   string
		roots     []string
		keptTexts string
	}{
		{"nothing answers", nothing, "nothing answers at " + nothing, nil, ""},
		{"hangs", serve(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }),
			"did not say what its services run", []string{"core/redis"}, "answered but did not say"},
		{"refuses", serve(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusUnauthorized) }),
			"401", []string{"core/redis"}, "answered but did not say"},
		{"answers garbage", serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }),
			"not a JSON list", []string{"core/redis"}, "answered but did not say"},
		{"names another release", serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(services)) }),
			"reports 2 loaded service(s)", []string{"core/redis/6.2.6/20210603120000", "acme/web/1.0/20220101000000"}, "the Supervisor runs it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := supervisor.Finder{Client: supervisor.Client{URL: tc.url, Timeout: 200 * time.Millisecond}, Default: true}
			found, err := f.FindRoots(context.Background(), inv)
			if err != nil {
				t.Fatalf("FindRoots: %v", err)
			}
			if found.Source != "supervisor" || !strings.Contains(found.Summary, tc.summary) {
				t.Errorf("found %q: %s, want a summary saying %q", found.Source, found.Summary, tc.summary)
			}
			var got []string
			for _, r := range found.Roots {
				got = append(got, r.Ident.String())
				if r.Code != retention.CodeService || !strings.Contains(r.Text, tc.keptTexts) {
					t.Errorf("root %s: %s %q", r.Ident, r.Code, r.Text)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.roots, " ") {
				t.Errorf("roots %v, want %v", got, tc.roots)
			}
			// Configured (not the default), any failure is an error: nothing
			// is removed.
			f.Default = false
			if _, err := f.FindRoots(context.Background(), inv); (err != nil) != (tc.keptTexts != "the Supervisor runs it") {
				t.Errorf("configured gateway: error %v", err)
			}
		})
	}
}

package supervisor_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/supervisor"
)

// services is shaped like the Supervisor's answer (trimmed): one object
// per service, the release in pkg.ident.
const services = `[
  {
    "service_group": "redis.default",
    "spec_ident": {"origin": "core", "name": "redis", "version": null, "release": null},
    "pkg": {"ident": "core/redis/6.2.6/20210603120000", "origin": "core", "name": "redis",
            "version": "6.2.6", "release": "20210603120000", "path": "/hab/pkgs/core/redis/6.2.6/20210603120000",
            "deps": [{"origin": "core", "name": "glibc", "version": "2.33", "release": "20210101000000"}]},
    "process": {"pid": 221, "state": "up"}
  },
  {"service_group": "web.prod", "pkg": {"origin": "acme", "name": "web", "version": "1.0", "release": "20220101000000"}}
]`

func serve(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestServices(t *testing.T) {
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/services" || r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Write([]byte(services))
	})
	url, err := supervisor.ParseURL(base)
	if err != nil {
		t.Fatal(err)
	}
	svcs, err := supervisor.Client{URL: url, Token: "s3cret"}.Services(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []supervisor.Service{
		{Group: "redis.default", Ident: pkgstore.MustParseIdent("core/redis/6.2.6/20210603120000")},
		{Group: "web.prod", Ident: pkgstore.MustParseIdent("acme/web/1.0/20220101000000")},
	}
	if len(svcs) != len(want) || svcs[0] != want[0] || svcs[1] != want[1] {
		t.Fatalf("services %+v, want %+v", svcs, want)
	}

	found, err := supervisor.Finder{Client: supervisor.Client{URL: url, Token: "s3cret"}}.FindRoots(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Roots) != 2 || found.Roots[0].Code != retention.CodeService || !strings.Contains(found.Roots[0].Text, "loaded service redis.default") {
		t.Fatalf("roots %+v", found.Roots)
	}
}

func TestServicesErrors(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL + "/services"
	closed.Close()
	cases := []struct {
		name    string
		url     string
		client  supervisor.Client
		handler http.HandlerFunc
		says    string
	}{
		{"unreachable", closedURL, supervisor.Client{}, nil, "connect"},
		{"no token", "", supervisor.Client{}, func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") == "" {
				http.Error(w, "no", http.StatusUnauthorized)
			}
		}, supervisor.TokenEnv},
		{"server error", "", supervisor.Client{}, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "x", http.StatusServiceUnavailable) }, "503"},
		{"html", "", supervisor.Client{}, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>hello</html>")) }, "not a JSON list"},
		{"object", "", supervisor.Client{}, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"services": []}`)) }, "not a JSON list"},
		{"null", "", supervisor.Client{}, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`null`)) }, "null"},
		{"no pkg", "", supervisor.Client{}, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`[{"service_group": "a.b"}]`)) }, `no "pkg"`},
		{"partial ident", "", supervisor.Client{}, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`[{"pkg": {"ident": "core/redis"}}]`)) }, "fully qualified"},
		{"truncated", "", supervisor.Client{}, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(services[:200])) }, "not a JSON list"},
		{"too large", "", supervisor.Client{MaxBytes: 100}, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(services)) }, "larger than 100 bytes"},
		{"too slow", "", supervisor.Client{Timeout: 50 * time.Millisecond}, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
		}, "deadline"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.client
			c.URL = tc.url
			if tc.handler != nil {
				c.URL = serve(t, tc.handler) + "/services"
			}
			_, err := c.Services(context.Background())
			if !errors.Is(err, supervisor.ErrGateway) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %v; want ErrGateway saying %q", err, tc.says)
			}
			if _, err := (supervisor.Finder{Client: c}).FindRoots(context.Background(), nil); !errors.Is(err, supervisor.ErrGateway) {
				t.Fatalf("finder error %v", err)
			}
		})
	}
}

func TestParseURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:9631":             "http://127.0.0.1:9631/services",
		"http://127.0.0.1:9631/":            "http://127.0.0.1:9631/services",
		"https://sup.example:9631/services": "https://sup.example:9631/services",
	} {
		if got, err := supervisor.ParseURL(in); err != nil || got != want {
			t.Errorf("ParseURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "127.0.0.1:9631", "ftp://x/services", "http:///services", "http://[::1"} {
		if _, err := supervisor.ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q) accepted", bad)
		}
	}
}

// A service group with control characters is quoted in the reason, which
// terminals print.
func TestFinderQuotesUnprintableGroup(t *testing.T) {
	url := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`[{"service_group": "a\u001b[2Jb", "pkg": {"ident": "core/a/1/2"}}]`))
	})
	found, err := supervisor.Finder{Client: supervisor.Client{URL: url}}.FindRoots(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Roots) != 1 || strings.ContainsRune(found.Roots[0].Text, 0x1b) || !strings.Contains(found.Roots[0].Text, `"a\x1b[2Jb"`) {
		t.Fatalf("roots %+v", found.Roots)
	}
}

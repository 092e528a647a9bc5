package main

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/internal/tlstest"
)

// TestRunAsksSupervisorOverTLS: a Supervisor started with --key, --certs
// and --ca-certs requires a client certificate (rustls
// WebPkiClientVerifier); hab-gc presents the one its settings name, from a
// flag, the environment or the config file, and verifies the gateway with
// the CA given.
func TestRunAsksSupervisorOverTLS(t *testing.T) {
	const running, newer = "core/redis/6.2.6/20210603120000", "core/redis/7.0.0/20220601120000"
	p := tlstest.New(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`[{"service_group": "redis.default", "pkg": {"ident": "` + running + `"}}]`))
	}))
	srv.TLS = p.ServerConfig()
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()

	mk := func(t *testing.T) *storetest.Builder {
		b := hostStore(t)
		b.Pkg(running).Pkg(newer)
		return b
	}
	base := func(b *storetest.Builder) []string {
		return []string{"run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false", "--fs-root", b.Root, "--sup-gateway", srv.URL}
	}
	flags := []string{"--sup-gateway-ca-certs", p.CAFile, "--sup-gateway-certs", p.ClientCert, "--sup-gateway-key", p.ClientKey}
	env := map[string]string{"HAB_GC_SUP_GATEWAY_CA_CERTS": p.CAFile, "HAB_GC_SUP_GATEWAY_CERTS": p.ClientCert, "HAB_GC_SUP_GATEWAY_KEY": p.ClientKey}
	for _, tc := range []struct {
		name   string
		flags  bool
		env    map[string]string
		config string
	}{
		{"flags", true, nil, ""},
		{"environment", false, env, ""},
		{"config file", false, nil, "sup_gateway_ca_certs = %q\nsup_gateway_certs = %q\nsup_gateway_key = %q\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setenv(t, tc.env)
			b := mk(t)
			args := base(b)
			if tc.flags {
				args = append(args, flags...)
			}
			if tc.config != "" {
				cfg := filepath.Join(testtool.TempDir(t), "hab-gc.toml")
				body := fmt.Sprintf(tc.config, p.CAFile, p.ClientCert, p.ClientKey)
				if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config", cfg)
			}
			rep, code, stderr := runJSON(t, tc.env, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			kept := false
			for _, r := range rep.Releases {
				if r.Ident == running && r.Action == "keep" && len(r.Reasons) > 0 && r.Reasons[0].Code == "loaded-service" {
					kept = true
				}
			}
			if !kept {
				t.Fatalf("%s not kept as loaded-service: %+v", running, rep.Releases)
			}
			if _, err := os.Stat(b.PkgPath(running)); err != nil {
				t.Fatal(err)
			}
		})
	}

	// Without a client certificate, or a CA that does not know the
	// gateway's: refused, nothing removed.
	for _, tc := range []struct {
		name  string
		extra []string
	}{
		{"no client certificate", []string{"--sup-gateway-ca-certs", p.CAFile}},
		{"unknown gateway CA", []string{"--sup-gateway-ca-certs", p.OtherCAFile, "--sup-gateway-certs", p.ClientCert, "--sup-gateway-key", p.ClientKey}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mk(t)
			_, code, stderr := runJSON(t, nil, append(base(b), tc.extra...)...)
			if code != exitRefused || !strings.Contains(stderr, "refusing") {
				t.Fatalf("exit %d, %s; want %d", code, stderr, exitRefused)
			}
			if _, err := os.Stat(b.PkgPath(running)); err != nil {
				t.Fatalf("removed although the gateway failed: %v", err)
			}
		})
	}

	// Bad settings are usage errors naming the setting.
	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"certificate without key", []string{"--sup-gateway", srv.URL, "--sup-gateway-certs", p.ClientCert}, "sup-gateway-key"},
		{"key without certificate", []string{"--sup-gateway", srv.URL, "--sup-gateway-key", p.ClientKey}, "sup-gateway-certs"},
		{"missing CA file", []string{"--sup-gateway", srv.URL, "--sup-gateway-ca-certs", "/nonexistent/ca.pem"}, "sup-gateway-ca-certs"},
		{"TLS settings for plain http", []string{"--sup-gateway", "http://127.0.0.1:9631", "--sup-gateway-ca-certs", p.CAFile}, "https"},
		{"TLS settings without a gateway", []string{"--sup-gateway-ca-certs", p.CAFile}, "sup-gateway"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mk(t)
			args := append([]string{"run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false", "--fs-root", b.Root}, tc.args...)
			_, code, stderr := runJSON(t, nil, args...)
			if code != exitUsage || !strings.Contains(stderr, tc.says) {
				t.Fatalf("exit %d, %s; want %d saying %q", code, stderr, exitUsage, tc.says)
			}
		})
	}
}

package supervisor_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/tlstest"
	"github.com/hab-gc/hab-gc/supervisor"
)

// A Supervisor started with --key, --certs and --ca-certs serves its gateway
// over TLS and requires a client certificate its CA signed (rustls
// WebPkiClientVerifier: components/sup/src/manager.rs), as this server does.
func TestServicesOverMutualTLS(t *testing.T) {
	p := tlstest.New(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
			http.Error(w, "no client certificate", http.StatusForbidden)
			return
		}
		w.Write([]byte(services))
	}))
	srv.TLS = p.ServerConfig()
	srv.Config.ErrorLog = quietLog()
	srv.StartTLS()
	t.Cleanup(srv.Close)
	url := srv.URL + "/services"

	cfg, err := supervisor.LoadTLS(supervisor.TLSFiles{CACerts: p.CAFile, Cert: p.ClientCert, Key: p.ClientKey})
	if err != nil {
		t.Fatal(err)
	}
	svcs, err := supervisor.Client{URL: url, TLS: cfg}.Services(context.Background())
	if err != nil || len(svcs) != 2 {
		t.Fatalf("with the client certificate: %v, %v", svcs, err)
	}

	cases := []struct {
		name  string
		files supervisor.TLSFiles
	}{
		{"no client certificate", supervisor.TLSFiles{CACerts: p.CAFile}},
		{"a certificate another CA signed", supervisor.TLSFiles{CACerts: p.CAFile, Cert: p.OtherCert, Key: p.OtherKey}},
		{"the server's CA unknown", supervisor.TLSFiles{CACerts: p.OtherCAFile, Cert: p.ClientCert, Key: p.ClientKey}},
		{"system roots only", supervisor.TLSFiles{Cert: p.ClientCert, Key: p.ClientKey}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := supervisor.LoadTLS(tc.files)
			if err != nil {
				t.Fatal(err)
			}
			svcs, err := supervisor.Client{URL: url, TLS: cfg}.Services(context.Background())
			if !errors.Is(err, supervisor.ErrGateway) {
				t.Fatalf("got %v, %v; want ErrGateway", svcs, err)
			}
		})
	}
}

func TestLoadTLSErrors(t *testing.T) {
	p := tlstest.New(t)
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		files supervisor.TLSFiles
		says  string
	}{
		{"cert without key", supervisor.TLSFiles{Cert: p.ClientCert}, "both"},
		{"key without cert", supervisor.TLSFiles{Key: p.ClientKey}, "both"},
		{"missing CA file", supervisor.TLSFiles{CACerts: filepath.Join(dir, "nope.pem")}, "nope.pem"},
		{"CA file without certificates", supervisor.TLSFiles{CACerts: garbage}, "garbage.pem"},
		{"key that is not PEM", supervisor.TLSFiles{Cert: p.ClientCert, Key: garbage}, "garbage.pem"},
		{"key of another certificate", supervisor.TLSFiles{Cert: p.ClientCert, Key: p.OtherKey}, "client.pem"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := supervisor.LoadTLS(tc.files)
			if !errors.Is(err, supervisor.ErrTLS) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %v; want ErrTLS saying %q", err, tc.says)
			}
		})
	}
}

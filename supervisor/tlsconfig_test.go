package supervisor_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/tlstest"
	"github.com/hab-gc/hab-gc/supervisor"
)

// TestTLSFilesConfig: the TLS files are checked against the gateway they
// are for before they are read, each refusal blaming one file: files need
// a gateway, an https:// one; a certificate needs its key and a key its
// certificate; the CA file is read on its own, then the client pair.
func TestTLSFilesConfig(t *testing.T) {
	p := tlstest.New(t)
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope.pem")
	const tlsURL, plainURL = "https://127.0.0.1:9631/services", "http://127.0.0.1:9631/services"
	for _, tc := range []struct {
		name  string
		files supervisor.TLSFiles
		url   string
		field string // "" : no error
		err   error
	}{
		{"no gateway: the CA blamed", supervisor.TLSFiles{CACerts: p.CAFile, Cert: p.ClientCert, Key: p.ClientKey}, "", "CACerts", supervisor.ErrNoGateway},
		{"no gateway: the certificate blamed", supervisor.TLSFiles{Cert: p.ClientCert, Key: p.ClientKey}, "", "Cert", supervisor.ErrNoGateway},
		{"no gateway: the key blamed", supervisor.TLSFiles{Key: p.ClientKey}, "", "Key", supervisor.ErrNoGateway},
		{"no gateway, a missing CA: the gateway first", supervisor.TLSFiles{CACerts: missing}, "", "CACerts", supervisor.ErrNoGateway},
		{"plain http", supervisor.TLSFiles{CACerts: p.CAFile}, plainURL, "CACerts", supervisor.ErrNotHTTPS},
		{"plain http, a half pair: http first", supervisor.TLSFiles{Key: p.ClientKey}, plainURL, "Key", supervisor.ErrNotHTTPS},
		{"certificate without key", supervisor.TLSFiles{CACerts: p.CAFile, Cert: p.ClientCert}, tlsURL, "Cert", supervisor.ErrHalfPair},
		{"key without certificate", supervisor.TLSFiles{Key: p.ClientKey}, tlsURL, "Key", supervisor.ErrHalfPair},
		{"key without certificate, a missing CA: the pair first", supervisor.TLSFiles{CACerts: missing, Key: p.ClientKey}, tlsURL, "Key", supervisor.ErrHalfPair},
		{"missing CA", supervisor.TLSFiles{CACerts: missing}, tlsURL, "CACerts", supervisor.ErrTLS},
		{"CA without certificates, a bad pair: the CA first", supervisor.TLSFiles{CACerts: garbage, Cert: p.ClientCert, Key: p.OtherKey}, tlsURL, "CACerts", supervisor.ErrTLS},
		{"key of another certificate", supervisor.TLSFiles{CACerts: p.CAFile, Cert: p.ClientCert, Key: p.OtherKey}, tlsURL, "Cert", supervisor.ErrTLS},
		{"missing certificate", supervisor.TLSFiles{Cert: missing, Key: p.ClientKey}, tlsURL, "Cert", supervisor.ErrTLS},
		{"key not PEM", supervisor.TLSFiles{Cert: p.ClientCert, Key: garbage}, tlsURL, "Cert", supervisor.ErrTLS},
		{"all three", supervisor.TLSFiles{CACerts: p.CAFile, Cert: p.ClientCert, Key: p.ClientKey}, tlsURL, "", nil},
		{"CA only", supervisor.TLSFiles{CACerts: p.CAFile}, tlsURL, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := tc.files.Config(tc.url)
			if tc.field == "" {
				if err != nil || cfg == nil {
					t.Fatalf("Config: %v, %v; want a configuration", cfg, err)
				}
				return
			}
			var fe *supervisor.TLSFileError
			if !errors.As(err, &fe) || fe.Field != tc.field || !errors.Is(err, tc.err) || cfg != nil {
				t.Fatalf("Config: %v, %v; want a TLSFileError blaming %s, wrapping %v", cfg, err, tc.field, tc.err)
			}
		})
	}
	// No file: no configuration of its own, whatever the gateway.
	for _, u := range []string{"", plainURL, tlsURL} {
		if cfg, err := (supervisor.TLSFiles{}).Config(u); cfg != nil || err != nil {
			t.Errorf("no files, gateway %q: %v, %v; want nil, nil", u, cfg, err)
		}
	}
}

// TestTLSFilesConfigConnects: the configuration Config returns is the one
// a Supervisor requiring a client certificate accepts.
func TestTLSFilesConfigConnects(t *testing.T) {
	p := tlstest.New(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(services))
	}))
	srv.TLS = p.ServerConfig()
	srv.Config.ErrorLog = quietLog()
	srv.StartTLS()
	t.Cleanup(srv.Close)
	url, err := supervisor.ParseURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := supervisor.TLSFiles{CACerts: p.CAFile, Cert: p.ClientCert, Key: p.ClientKey}.Config(url)
	if err != nil {
		t.Fatal(err)
	}
	if svcs, err := (supervisor.Client{URL: url, TLS: cfg}).Services(context.Background()); err != nil || len(svcs) != 2 {
		t.Fatalf("with the client certificate: %v, %v", svcs, err)
	}
	// The CA alone: the gateway is verified, but it wants a certificate.
	cfg, err = supervisor.TLSFiles{CACerts: p.CAFile}.Config(url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (supervisor.Client{URL: url, TLS: cfg}).Services(context.Background()); !errors.Is(err, supervisor.ErrGateway) {
		t.Fatalf("without a client certificate: %v, want ErrGateway", err)
	}
}

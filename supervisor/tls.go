package supervisor

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// ErrTLS is wrapped by every error LoadTLS returns: a file that cannot be
// read or holds no usable certificate or key.
var ErrTLS = errors.New("gateway TLS settings")

// ErrHalfPair is wrapped by the error of a client certificate without its
// key, or a key without its certificate (LoadTLS, TLSFiles.Config).
var ErrHalfPair = errors.New("a client certificate needs both the certificate and its key")

// ErrNoGateway is wrapped by TLSFiles.Config's error when files are set
// but no gateway is: they are for a gateway served over TLS.
var ErrNoGateway = errors.New("TLS files are for a Supervisor's gateway served over TLS, and no gateway is set")

// ErrNotHTTPS is wrapped by TLSFiles.Config's error when files are set
// for a gateway whose URL is not https://.
var ErrNotHTTPS = errors.New("TLS files need an https:// gateway")

// TLSFileError is TLSFiles.Config's error: which file is to blame (Field,
// the name of TLSFiles' field: "CACerts", "Cert" or "Key") and why (Err:
// ErrNoGateway, ErrNotHTTPS, ErrHalfPair, or LoadTLS's error wrapping
// ErrTLS).
type TLSFileError struct {
	Field string
	Err   error
}

func (e *TLSFileError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *TLSFileError) Unwrap() error { return e.Err }

// TLSFiles names the PEM files for a gateway served over TLS. A Supervisor
// started with `hab sup run --key KEY --certs CERTS` serves its HTTP
// gateway over TLS; with `--ca-certs CA` too, it requires a client
// certificate that CA signed (rustls WebPkiClientVerifier: habitat-sh/habitat
// components/sup/src/manager.rs; the flags: components/hab/src/cli_v4/sup/sup_run.rs).
type TLSFiles struct {
	// CACerts verifies the gateway's certificate: the CA at the end of the
	// Supervisor's --certs chain. Empty: the system's roots.
	CACerts string
	// Cert and Key are the client certificate (chain) and its private key,
	// for a Supervisor started with --ca-certs. Both or neither.
	Cert, Key string
}

// IsZero reports whether no file is set.
func (f TLSFiles) IsZero() bool { return f == TLSFiles{} }

// LoadTLS reads the files into a client TLS configuration. Each is read
// without blocking on a FIFO or a device (a regular file only, following a
// symlink, at most safeio.Limit bytes).
func LoadTLS(f TLSFiles) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.CACerts != "" {
		pem, err := safeio.ReadFile(f.CACerts, safeio.Limit, safeio.FollowLinks)
		if err != nil {
			return nil, fmt.Errorf("%w: CA certificates: %v", ErrTLS, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: CA certificates: %s holds no PEM certificate", ErrTLS, f.CACerts)
		}
		cfg.RootCAs = pool
	}
	switch {
	case f.Cert != "" && f.Key != "":
		certPEM, err := safeio.ReadFile(f.Cert, safeio.Limit, safeio.FollowLinks)
		if err != nil {
			return nil, fmt.Errorf("%w: client certificate: %v", ErrTLS, err)
		}
		keyPEM, err := safeio.ReadFile(f.Key, safeio.Limit, safeio.FollowLinks)
		if err != nil {
			return nil, fmt.Errorf("%w: client key: %v", ErrTLS, err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("%w: client certificate %s with key %s: %v", ErrTLS, f.Cert, f.Key, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	case f.Cert != "" || f.Key != "":
		return nil, fmt.Errorf("%w: %w", ErrTLS, ErrHalfPair)
	}
	return cfg, nil
}

// Config checks the files against the gateway they are for, url as
// ParseURL returns it ("" for no gateway), then reads them (LoadTLS): nil
// and no error when no file is set (a gateway over https is then verified
// with the system's roots). Each refusal is a *TLSFileError naming the
// file to blame, checked in this order: files without a gateway
// (ErrNoGateway) or for one that is not https:// (ErrNotHTTPS), both
// blaming the first file set (CACerts, Cert, Key); a certificate without
// its key (ErrHalfPair, Cert) or a key without its certificate
// (ErrHalfPair, Key); the CA file, read on its own (CACerts); then the
// client certificate with its key (Cert).
func (f TLSFiles) Config(url string) (*tls.Config, error) {
	if f.IsZero() {
		return nil, nil
	}
	first := "CACerts"
	switch {
	case f.CACerts != "":
	case f.Cert != "":
		first = "Cert"
	default:
		first = "Key"
	}
	switch {
	case url == "":
		return nil, &TLSFileError{Field: first, Err: ErrNoGateway}
	case !strings.HasPrefix(url, "https://"):
		return nil, &TLSFileError{Field: first, Err: fmt.Errorf("%w (%s is not)", ErrNotHTTPS, url)}
	case f.Cert != "" && f.Key == "":
		return nil, &TLSFileError{Field: "Cert", Err: ErrHalfPair}
	case f.Key != "" && f.Cert == "":
		return nil, &TLSFileError{Field: "Key", Err: ErrHalfPair}
	}
	if _, err := LoadTLS(TLSFiles{CACerts: f.CACerts}); err != nil {
		return nil, &TLSFileError{Field: "CACerts", Err: err}
	}
	cfg, err := LoadTLS(f)
	if err != nil {
		return nil, &TLSFileError{Field: "Cert", Err: err}
	}
	return cfg, nil
}

package supervisor

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// Errors TLSFiles.Config's *TLSFileError wraps.
var (
	// ErrTLS: a file cannot be read or holds no usable certificate or key.
	ErrTLS       = errors.New("gateway TLS settings")
	ErrHalfPair  = errors.New("a client certificate needs both the certificate and its key")
	ErrNoGateway = errors.New("TLS files are for a Supervisor's gateway served over TLS, and no gateway is set")
	ErrNotHTTPS  = errors.New("TLS files need an https:// gateway")
)

// TLSFileError names the file to blame by its TLSFiles field ("CACerts",
// "Cert" or "Key").
type TLSFileError struct {
	Field string
	Err   error
}

func (e *TLSFileError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *TLSFileError) Unwrap() error { return e.Err }

// TLSFiles names the PEM files for a gateway served over TLS (`hab sup
// run --key --certs`; with --ca-certs it requires a client certificate
// that CA signed: sup/src/manager.rs).
type TLSFiles struct {
	// CACerts verifies the gateway (empty: the system's roots).
	CACerts string
	// Cert and Key are the client certificate chain and its key.
	Cert, Key string
}

// loadTLS reads regular files only (never blocking on a FIFO), at most
// safeio.Limit bytes each.
func loadTLS(f TLSFiles) (*tls.Config, error) {
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

// Config checks the files against the gateway url ("" for none) and
// reads them: nil when no file is set. Each refusal is a *TLSFileError:
// files without a gateway (ErrNoGateway) or for one not https://
// (ErrNotHTTPS) blame the first file set; a half pair (ErrHalfPair) the
// half given; a bad CA file CACerts; a bad pair Cert.
func (f TLSFiles) Config(url string) (*tls.Config, error) {
	if f == (TLSFiles{}) {
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
	if _, err := loadTLS(TLSFiles{CACerts: f.CACerts}); err != nil {
		return nil, &TLSFileError{Field: "CACerts", Err: err}
	}
	cfg, err := loadTLS(f)
	if err != nil {
		return nil, &TLSFileError{Field: "Cert", Err: err}
	}
	return cfg, nil
}

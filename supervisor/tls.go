package supervisor

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// ErrTLS is wrapped by every error LoadTLS returns: a file that cannot be
// read or holds no usable certificate or key.
var ErrTLS = errors.New("gateway TLS settings")

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
		return nil, fmt.Errorf("%w: a client certificate needs both the certificate and its key", ErrTLS)
	}
	return cfg, nil
}

package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// PKI is a generated CA with its certificates; every *File a PEM file.
type PKI struct {
	CA     *x509.Certificate
	CAFile string
	// Server is the gateway's certificate, for 127.0.0.1.
	Server tls.Certificate
	// ClientCert and ClientKey are a client certificate CA signed.
	ClientCert, ClientKey string
	// OtherCert and OtherKey are a client certificate another CA
	// (OtherCAFile) signed.
	OtherCert, OtherKey, OtherCAFile string
}

// New generates a PKI, its files in a new temporary directory.
func New(t testing.TB) PKI {
	t.Helper()
	dir := testtool.TempDir(t)
	var p PKI
	ca, caKey := newCA(t, "gateway test CA")
	p.CA = ca
	p.CAFile = writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", ca.Raw)
	srvDER, srvKey := leaf(t, ca, caKey, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	p.Server = tls.Certificate{Certificate: [][]byte{srvDER}, PrivateKey: srvKey}
	cliDER, cliKey := leaf(t, ca, caKey, "hab-gc", x509.ExtKeyUsageClientAuth)
	p.ClientCert = writePEM(t, filepath.Join(dir, "client.pem"), "CERTIFICATE", cliDER)
	p.ClientKey = writeKey(t, filepath.Join(dir, "client.key"), cliKey)
	other, otherKey := newCA(t, "another CA")
	p.OtherCAFile = writePEM(t, filepath.Join(dir, "other-ca.pem"), "CERTIFICATE", other.Raw)
	oDER, oKey := leaf(t, other, otherKey, "hab-gc", x509.ExtKeyUsageClientAuth)
	p.OtherCert = writePEM(t, filepath.Join(dir, "other.pem"), "CERTIFICATE", oDER)
	p.OtherKey = writeKey(t, filepath.Join(dir, "other.key"), oKey)
	return p
}

// ServerConfig serves Server and requires a client certificate CA signed
// (tls.RequireAndVerifyClientCert).
func (p PKI) ServerConfig() *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(p.CA)
	return &tls.Config{Certificates: []tls.Certificate{p.Server}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
}

func newCA(t testing.TB, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

func leaf(t testing.TB, ca *x509.Certificate, caKey *ecdsa.PrivateKey, name string, usage x509.ExtKeyUsage) ([]byte, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}}
	if ip := net.ParseIP(name); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return der, key
}

func writePEM(t testing.TB, path, typ string, der []byte) string {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeKey(t testing.TB, path string, key *ecdsa.PrivateKey) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return writePEM(t, path, "PRIVATE KEY", der)
}

// Package tlstest generates, for tests, what a Habitat Supervisor's TLS
// gateway and its clients hold: a CA, a server certificate for 127.0.0.1,
// a client certificate the CA signed, and one another CA signed, as PEM
// files, and the server's configuration requiring a client certificate as
// `hab sup run --key --certs --ca-certs` does (rustls WebPkiClientVerifier:
// habitat-sh/habitat components/sup/src/manager.rs).
package tlstest

// Package supervisor asks a running Habitat Supervisor which releases its
// services run, through its HTTP gateway (GET /services, bearer token
// HAB_SUP_GATEWAY_AUTH_TOKEN), as `hab pkg uninstall` does. A service may
// run a release older than the newest its spec matches (update strategy
// "none", a rollback).
//
// Finder makes each service's release a root with code loaded-service.
// Unlike Habitat, a configured gateway that is unreachable, slow, or
// answering anything but 200 with a well-formed list is an error wrapping
// ErrGateway: a plan refuses rather than guess. A redirect is never
// followed and no proxy is used, so the token goes to the configured URL
// only. A gateway served over TLS (`hab sup run --key --certs`, with
// --ca-certs requiring a client certificate) is reached with TLSFiles:
//
//	url, err := supervisor.ParseURL("https://127.0.0.1:9631")
//	cfg, err := supervisor.TLSFiles{CACerts: "ca.pem", Cert: "client.pem", Key: "client.key"}.Config(url)
//	client := supervisor.Client{URL: url, TLS: cfg}
package supervisor

// Package supervisor asks a running Habitat Supervisor which releases its
// services run, through its HTTP gateway, as `hab pkg uninstall` asks it
// before removing anything.
//
// GET /services (default http://127.0.0.1:9631/services) answers a JSON
// array with one object per loaded service; its "pkg" object names the
// exact release the service runs ("ident": "core/redis/6.2.6/2021..."),
// which may be older than the newest installed release its spec matches
// (update strategy "none", a rollback). When the gateway is protected, the
// Supervisor wants the token of HAB_SUP_GATEWAY_AUTH_TOKEN as a bearer
// token.
//
// Finder turns each service into a retention root with code
// loaded-service. Unlike Habitat, which protects nothing when no
// Supervisor answers, a gateway that is configured but unreachable, slow
// (Client.Timeout), or answering anything but 200 with a well-formed list
// is an error wrapping ErrGateway, so that a plan or a removal refuses
// rather than guess. The response is read up to Client.MaxBytes.
//
// A redirect is never followed (it is an error naming where it points), so
// the bearer token goes to the configured URL only, and the default client
// uses no proxy. A Supervisor started with `hab sup run --key --certs`
// serves the gateway over TLS, and with --ca-certs requires a client
// certificate its CA signed: LoadTLS reads the CA that verifies the gateway
// and the client certificate and key into Client.TLS. TLSFiles.Config
// checks them against the gateway first (files need an https:// gateway,
// a certificate its key and a key its certificate) and blames one file
// when something is wrong (TLSFileError):
//
//	url, err := supervisor.ParseURL("https://127.0.0.1:9631")
//	cfg, err := supervisor.TLSFiles{CACerts: "ca.pem", Cert: "client.pem", Key: "client.key"}.Config(url)
//	client := supervisor.Client{URL: url, TLS: cfg}
package supervisor

package main

import (
	"crypto/tls"
	"strings"

	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
	"github.com/hab-gc/hab-gc/supervisor"
)

// rootFinders are where the policy looks for releases in use: running
// processes (runtime_roots, read by runroots.ParseMode: true unless turned
// off; best-effort goes on when some process cannot be seen and a write
// lease cannot stand in, as every dry run does) and, when sup_gateway is
// set, the Supervisor's HTTP gateway (token from
// HAB_SUP_GATEWAY_AUTH_TOKEN).
func (c *config) rootFinders() ([]retention.RootFinder, error) {
	mode := runroots.ModeOn
	if c.isSet("runtime_roots") {
		var err error
		if mode, err = runroots.ParseMode(c.raw("runtime_roots")); err != nil {
			return nil, c.bad("runtime_roots", "must be true, false or best-effort")
		}
	}
	dry, _ := c.cmd.Flags().GetBool("dry-run")
	finders := mode.Finders(dry)
	raw := strings.TrimSpace(c.raw("sup_gateway"))
	files := supervisor.TLSFiles{CACerts: c.raw("sup_gateway_ca_certs"), Cert: c.raw("sup_gateway_certs"), Key: c.raw("sup_gateway_key")}
	if raw == "" {
		if k := c.firstSet("sup_gateway_ca_certs", "sup_gateway_certs", "sup_gateway_key"); k != "" {
			return nil, c.bad(k, "needs sup-gateway: it is for the Supervisor's gateway served over TLS")
		}
		return finders, nil
	}
	u, err := supervisor.ParseURL(raw)
	if err != nil {
		return nil, c.bad("sup_gateway", err.Error())
	}
	client := supervisor.Client{URL: u}
	client.Token, _ = c.lookup(supervisor.TokenEnv)
	if !files.IsZero() {
		if client.TLS, err = c.gatewayTLS(u, files); err != nil {
			return nil, err
		}
	}
	return append(finders, supervisor.Finder{Client: client}), nil
}

// gatewayTLS reads the gateway's TLS files: the CA that verifies the
// gateway (the root of the Supervisor's --certs) and the client
// certificate and key a Supervisor started with --ca-certs requires.
func (c *config) gatewayTLS(u string, files supervisor.TLSFiles) (*tls.Config, error) {
	if !strings.HasPrefix(u, "https://") {
		return nil, c.bad(c.firstSet("sup_gateway_ca_certs", "sup_gateway_certs", "sup_gateway_key"),
			"needs an https:// sup-gateway ("+u+" is plain http)")
	}
	switch {
	case files.Cert != "" && files.Key == "":
		return nil, c.bad("sup_gateway_certs", "needs sup-gateway-key too: the client certificate's private key")
	case files.Key != "" && files.Cert == "":
		return nil, c.bad("sup_gateway_key", "needs sup-gateway-certs too: the client certificate it is the key of")
	}
	if _, err := supervisor.LoadTLS(supervisor.TLSFiles{CACerts: files.CACerts}); err != nil {
		return nil, c.bad("sup_gateway_ca_certs", err.Error())
	}
	cfg, err := supervisor.LoadTLS(files)
	if err != nil {
		return nil, c.bad("sup_gateway_certs", err.Error())
	}
	return cfg, nil
}

package main

import (
	"errors"
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
	var u string
	if raw != "" {
		var err error
		if u, err = supervisor.ParseURL(raw); err != nil {
			return nil, c.bad("sup_gateway", err.Error())
		}
	}
	files := supervisor.TLSFiles{CACerts: c.raw("sup_gateway_ca_certs"), Cert: c.raw("sup_gateway_certs"), Key: c.raw("sup_gateway_key")}
	cfg, err := files.Config(u)
	if err != nil {
		return nil, c.gatewayTLSError(u, err)
	}
	if u == "" {
		return finders, nil
	}
	client := supervisor.Client{URL: u, TLS: cfg}
	client.Token, _ = c.lookup(supervisor.TokenEnv)
	return append(finders, supervisor.Finder{Client: client}), nil
}

// gatewayTLSSetting is the setting of a supervisor.TLSFiles field: the CA
// that verifies the gateway (the root of the Supervisor's --certs), the
// client certificate and its key (for a Supervisor started with
// --ca-certs).
func gatewayTLSSetting(field string) string {
	switch field {
	case "CACerts":
		return "sup_gateway_ca_certs"
	case "Key":
		return "sup_gateway_key"
	}
	return "sup_gateway_certs"
}

// gatewayTLSError says which TLS file setting supervisor.TLSFiles.Config
// refused, and why (u: the gateway's URL).
func (c *config) gatewayTLSError(u string, err error) error {
	var fe *supervisor.TLSFileError
	if !errors.As(err, &fe) {
		return err
	}
	key := gatewayTLSSetting(fe.Field)
	switch {
	case errors.Is(err, supervisor.ErrNoGateway):
		return c.bad(key, "needs sup-gateway: it is for the Supervisor's gateway served over TLS")
	case errors.Is(err, supervisor.ErrNotHTTPS):
		return c.bad(key, "needs an https:// sup-gateway ("+u+" is plain http)")
	case errors.Is(err, supervisor.ErrHalfPair) && key == "sup_gateway_certs":
		return c.bad(key, "needs sup-gateway-key too: the client certificate's private key")
	case errors.Is(err, supervisor.ErrHalfPair):
		return c.bad(key, "needs sup-gateway-certs too: the client certificate it is the key of")
	}
	return c.bad(key, fe.Err.Error())
}

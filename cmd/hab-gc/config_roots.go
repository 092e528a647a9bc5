package main

import (
	"errors"
	"strings"

	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
	"github.com/hab-gc/hab-gc/supervisor"
)

// roots sets how processes are read (a dry run: best effort) and the
// Supervisor's gateway to ask.
func (c *config) roots(p *retention.Policy) error {
	if c.isSet("runtime_roots") {
		var err error
		if p.RuntimeRoots, err = runroots.ParseMode(c.raw("runtime_roots")); err != nil {
			return c.bad("runtime_roots", "must be true, false or best-effort")
		}
	}
	if dry, _ := c.cmd.Flags().GetBool("dry-run"); dry && p.RuntimeRoots == runroots.ModeOn {
		p.RuntimeRoots = runroots.ModeBestEffort
	}
	raw := strings.TrimSpace(c.raw("sup_gateway"))
	var u string
	if raw != "" {
		var err error
		if u, err = supervisor.ParseURL(raw); err != nil {
			return c.bad("sup_gateway", err.Error())
		}
	}
	files := supervisor.TLSFiles{CACerts: c.raw("sup_gateway_ca_certs"), Cert: c.raw("sup_gateway_certs"), Key: c.raw("sup_gateway_key")}
	cfg, err := files.Config(u)
	if err != nil {
		return c.gatewayTLSError(u, err)
	}
	f := supervisor.Finder{Client: supervisor.Client{URL: u, TLS: cfg}, Default: u == ""}
	f.Token, _ = c.lookup(supervisor.TokenEnv)
	p.RootFinders = append(p.RootFinders, f)
	return nil
}

// gatewayTLSError names the TLS file setting supervisor.TLSFiles.Config
// refused (u: the gateway's URL).
func (c *config) gatewayTLSError(u string, err error) error {
	var fe *supervisor.TLSFileError
	if !errors.As(err, &fe) {
		return err
	}
	key := map[string]string{"CACerts": "sup_gateway_ca_certs", "Key": "sup_gateway_key"}[fe.Field]
	if key == "" {
		key = "sup_gateway_certs"
	}
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

package supervisor

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// ErrGateway is wrapped by every error about the gateway.
var ErrGateway = errors.New("the Supervisor's HTTP gateway did not say what its services run")

const (
	DefaultURL = "http://127.0.0.1:9631/services"
	// TokenEnv holds the gateway's bearer token, as for Habitat itself.
	TokenEnv        = "HAB_SUP_GATEWAY_AUTH_TOKEN"
	DefaultTimeout  = 10 * time.Second
	DefaultMaxBytes = 32 << 20
)

// service is one loaded service and the release it runs.
type service struct {
	Group string // "redis.default"; may be empty
	Ident pkgstore.Ident
}

// ParseURL checks a gateway address: http or https with a host; no path
// means /services.
func ParseURL(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("gateway URL %q: %v", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("gateway URL %q: must be http:// or https:// with a host, e.g. %s", s, DefaultURL)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/services"
	}
	return u.String(), nil
}

// parse reads the body of GET /services: each service's "pkg" names a
// release by "ident" or by its four parts.
func parse(body []byte) ([]service, error) {
	var raw []struct {
		Group *string `json:"service_group"`
		Pkg   *struct {
			Ident   *string `json:"ident"`
			Origin  *string `json:"origin"`
			Name    *string `json:"name"`
			Version *string `json:"version"`
			Release *string `json:"release"`
		} `json:"pkg"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("%w: not a JSON list of services: %v", ErrGateway, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("%w: not a JSON list of services (null)", ErrGateway)
	}
	out := make([]service, 0, len(raw))
	for i, r := range raw {
		if r.Pkg == nil {
			return nil, fmt.Errorf("%w: service %d has no \"pkg\"", ErrGateway, i)
		}
		var ident string
		switch p := r.Pkg; {
		case p.Ident != nil:
			ident = *p.Ident
		case p.Origin != nil && p.Name != nil && p.Version != nil && p.Release != nil:
			ident = *p.Origin + "/" + *p.Name + "/" + *p.Version + "/" + *p.Release
		default:
			return nil, fmt.Errorf("%w: service %d has no \"pkg\".\"ident\"", ErrGateway, i)
		}
		id, err := pkgstore.ParseFullIdent(ident)
		if err != nil {
			return nil, fmt.Errorf("%w: service %d: %v", ErrGateway, i, err)
		}
		s := service{Ident: id}
		if r.Group != nil {
			s.Group = *r.Group
		}
		out = append(out, s)
	}
	return out, nil
}

// Client reads the gateway.
type Client struct {
	URL      string // the services endpoint (ParseURL)
	Token    string // sent as a bearer token
	Timeout  time.Duration
	MaxBytes int64
	// TLS is ignored when HTTP is set (TLSFiles.Config).
	TLS *tls.Config
	// HTTP's redirects are never followed, whatever its CheckRedirect.
	HTTP           *http.Client
	connectTimeout time.Duration // ignored with HTTP
}

// httpClient never follows a redirect: the token is for the gateway
// configured.
func (c Client) httpClient() *http.Client {
	var hc http.Client
	if c.HTTP != nil {
		hc = *c.HTTP
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.Proxy = nil
		tr.TLSClientConfig = c.TLS
		if c.connectTimeout > 0 {
			tr.DialContext = (&net.Dialer{Timeout: c.connectTimeout}).DialContext
		}
		hc.Transport = tr
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &hc
}

func (c Client) url() string {
	if c.URL == "" {
		return DefaultURL
	}
	return c.URL
}

// ErrInvalidClient is wrapped by Client.Validate's errors.
var ErrInvalidClient = errors.New("invalid gateway client settings")

// Validate refuses a negative Timeout or MaxBytes.
func (c Client) Validate() error {
	if c.Timeout < 0 {
		return fmt.Errorf("%w: timeout %s is negative (0 is DefaultTimeout)", ErrInvalidClient, c.Timeout)
	}
	if c.MaxBytes < 0 {
		return fmt.Errorf("%w: max bytes %d is negative (0 is DefaultMaxBytes)", ErrInvalidClient, c.MaxBytes)
	}
	return nil
}

// services asks the gateway for the loaded services.
func (c Client) services(ctx context.Context) ([]service, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	timeout, limit := c.Timeout, c.MaxBytes
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if limit == 0 {
		limit = DefaultMaxBytes
	}
	hc := c.httpClient()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrGateway, c.url(), err)
	}
	req.Header.Set("Accept", "application/json")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrGateway, c.url(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: reading the answer: %v", ErrGateway, c.url(), err)
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		where := resp.Header.Get("Location")
		if loc, err := resp.Location(); err == nil {
			where = loc.String()
		}
		return nil, fmt.Errorf("%w: %s answered %s, a redirect to %q: not followed (the gateway's token is sent to the configured URL only; configure the address it redirects to if that is the gateway)", ErrGateway, c.url(), resp.Status, where)
	}
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if resp.StatusCode == http.StatusUnauthorized {
			hint = " (set " + TokenEnv + " to the gateway's token)"
		}
		return nil, fmt.Errorf("%w: %s answered %s%s", ErrGateway, c.url(), resp.Status, hint)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%w: %s: answer larger than %d bytes", ErrGateway, c.url(), limit)
	}
	svcs, err := parse(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.url(), err)
	}
	return svcs, nil
}

// Finder is a retention.RootFinder: each release a loaded service runs
// is a root with code loaded-service.
type Finder struct {
	Client
	// Default: no gateway was configured, so it is asked briefly; where
	// nothing answers it finds nothing, and where it answers but does not
	// say what its services run every release each service's spec allows
	// is kept. Otherwise any failure is an error.
	Default bool
}

func (f Finder) FindRoots(ctx context.Context, inv *pkgstore.Inventory) (retention.Found, error) {
	if f.Default {
		f.connectTimeout = time.Second
		if f.Timeout == 0 {
			f.Timeout = 3 * time.Second
		}
	}
	svcs, err := f.services(ctx)
	if err != nil && f.Default && ctx.Err() == nil && errors.Is(err, ErrGateway) {
		return f.unanswered(inv, err), nil
	}
	if err != nil {
		return retention.Found{}, err
	}
	found := retention.Found{Source: "supervisor",
		Summary: fmt.Sprintf("supervisor: %s reports %d loaded service(s)", f.url(), len(svcs)),
		Counts:  map[string]int{"services": len(svcs)}}
	for _, s := range svcs {
		name := s.Group
		if name == "" {
			name = s.Ident.Name
		}
		if !utf8.ValidString(name) || strings.IndexFunc(name, func(r rune) bool { return !strconv.IsPrint(r) }) >= 0 {
			name = strconv.Quote(name) // the gateway's text, printed on terminals
		}
		found.Roots = append(found.Roots, retention.Root{Ident: s.Ident, Code: retention.CodeService,
			Text: fmt.Sprintf("the Supervisor runs it for loaded service %s (gateway %s)", name, f.url())})
	}
	return found, nil
}

// unanswered is what the default gateway found when it did not say what
// its services run (with nothing answering, the PID files tell).
func (f Finder) unanswered(inv *pkgstore.Inventory, err error) retention.Found {
	found := retention.Found{Source: "supervisor"}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		found.Summary = fmt.Sprintf("supervisor: nothing answers at %s (%v); which release each service runs is read from its PID file", f.url(), op.Err)
		return found
	}
	found.Summary = fmt.Sprintf("supervisor: the gateway did not say what its services run, so every release each loaded service's spec allows is kept: %v", err)
	for _, svc := range inv.Services {
		found.Roots = append(found.Roots, retention.Root{Ident: svc.Ident, Code: retention.CodeService,
			Text: fmt.Sprintf("loaded service %s may run it: the Supervisor's gateway %s answered but did not say what its services run, so every release its spec ident %s allows is kept", svc.Name, f.url(), svc.Ident)})
	}
	return found
}

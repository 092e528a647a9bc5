package supervisor_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hab-gc/hab-gc/supervisor"
)

// A redirect is never followed: the bearer token (and the question) stay
// with the gateway configured, whatever it answers.
func TestServicesRefusesRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Write([]byte(services))
	}))
	t.Cleanup(other.Close)
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			for _, target := range []string{other.URL + "/services", "/services2"} {
				url := serve(t, func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/services2" {
						elsewhere.Add(1)
						w.Write([]byte(services))
						return
					}
					http.Redirect(w, r, target, code)
				}) + "/services"
				svcs, err := supervisor.Client{URL: url, Token: "s3cret"}.Services(context.Background())
				if !errors.Is(err, supervisor.ErrGateway) || !strings.Contains(err.Error(), "redirect") || !strings.Contains(err.Error(), target) {
					t.Fatalf("redirect to %s: got %v, %v; want ErrGateway saying it redirects there", target, svcs, err)
				}
				if n := elsewhere.Load(); n != 0 {
					t.Fatalf("redirect to %s was followed (%d requests)", target, n)
				}
			}
		})
	}
	// Also with a caller's own http.Client.
	url := serve(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other.URL, http.StatusFound) })
	if _, err := (supervisor.Client{URL: url, Token: "s3cret", HTTP: &http.Client{}}).Services(context.Background()); !errors.Is(err, supervisor.ErrGateway) || elsewhere.Load() != 0 {
		t.Fatalf("caller's client: %v, %d requests elsewhere", err, elsewhere.Load())
	}
}

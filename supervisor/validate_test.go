package supervisor_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/supervisor"
)

// TestClientZeroAndNegative: the zero Timeout and
// MaxBytes are the defaults; a negative one is refused before any request
// (it was taken as the default).
func TestClientZeroAndNegative(t *testing.T) {
	asked := 0
	base := serve(t, func(w http.ResponseWriter, r *http.Request) { asked++; w.Write([]byte(services)) })
	url, err := supervisor.ParseURL(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    supervisor.Client
		ok   bool
	}{
		{"zero", supervisor.Client{URL: url}, true},
		{"negative timeout", supervisor.Client{URL: url, Timeout: -time.Second}, false},
		{"negative max bytes", supervisor.Client{URL: url, MaxBytes: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := asked
			_, err := tc.c.Services(context.Background())
			if (err == nil) != tc.ok || (!tc.ok && (!errors.Is(err, supervisor.ErrInvalidClient) || asked != before)) {
				t.Fatalf("Services: %v (asked %d times), want ok %v", err, asked-before, tc.ok)
			}
			if (tc.c.Validate() == nil) != tc.ok {
				t.Fatalf("Validate disagrees with Services")
			}
		})
	}
}

package supervisor_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/hab-gc/hab-gc/supervisor"
)

// Client asks a Supervisor's HTTP gateway what its services run. Here a
// test server answers as a Supervisor does (its /services list, trimmed to
// the fields hab-gc reads).
func ExampleClient_Services() {
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `[{"service_group": "redis.default",
		  "pkg": {"origin": "core", "name": "redis", "version": "7.0.1", "release": "20220201000000"}}]`)
	}))
	defer gw.Close()

	c := supervisor.Client{URL: gw.URL + "/services"}
	svcs, err := c.Services(context.Background())
	if err != nil {
		panic(err)
	}
	for _, s := range svcs {
		fmt.Println(s.Group, "runs", s.Ident)
	}
	// Output: redis.default runs core/redis/7.0.1/20220201000000
}

// TLSFiles.Config checks the gateway's TLS files against the gateway
// before it reads them, and says which file is to blame.
func ExampleTLSFiles_Config() {
	_, err := supervisor.TLSFiles{Cert: "client.pem"}.Config("https://127.0.0.1:9631/services")
	var fe *supervisor.TLSFileError
	if errors.As(err, &fe) {
		fmt.Println(fe.Field, errors.Is(err, supervisor.ErrHalfPair))
	}
	_, err = supervisor.TLSFiles{CACerts: "ca.pem"}.Config("http://127.0.0.1:9631/services")
	fmt.Println(errors.Is(err, supervisor.ErrNotHTTPS))
	// Output:
	// Cert true
	// true
}

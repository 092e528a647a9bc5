package supervisor_test

import (
	"context"
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

package supervisor_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/supervisor"
)

// What a real Supervisor's gateway serves at /services: Habitat's own
// fixtures (components/sup/tests/fixtures/http-gateway/), served by a real
// server and read by the client.
func TestServicesHabitatFixtures(t *testing.T) {
	dir := testtool.HabitatFixturesDir(t)
	if dir == "" {
		t.Skip("../shared/habitat-fixtures is absent (a clone without it); TestServicesSupervisorShape covers the same shape")
	}
	for _, name := range []string{"sample-services-with-cfg-output.json", "sample-services-without-cfg-output.json"} {
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			url := serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
			svcs, err := supervisor.Client{URL: url + "/services"}.Services(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := supervisor.Service{Group: "builder-api.default", Ident: pkgstore.MustParseIdent("habitat/builder-api/7602/20180906202535")}
			if len(svcs) != 1 || svcs[0] != want {
				t.Fatalf("services %+v, want [%+v]", svcs, want)
			}
		})
	}
}

// The same shape, generated: every field a Supervisor's service has (the
// fixtures' keys), the release in pkg, a partial spec_ident, deps, cfg.
func TestServicesSupervisorShape(t *testing.T) {
	svc := func(group, origin, name, version, release string, cfg bool) map[string]any {
		ident := origin + "/" + name + "/" + version + "/" + release
		m := map[string]any{
			"all_pkg_binds": []any{}, "binding_mode": "strict", "binds": []any{}, "bldr_url": "https://bldr.habitat.sh",
			"channel": "stable", "config_from": nil, "desired_state": "Up",
			"health_check": "Ok", "health_check_interval": map[string]any{"secs": 30, "nanos": 0},
			"hooks":       map[string]any{"health_check": nil, "init": nil, "run": nil},
			"initialized": true, "last_election_status": "None",
			"manager_fs_cfg": map[string]any{"data_path": "/hab/sup/default/data", "specs_path": "/hab/sup/default/specs"},
			"pkg": map[string]any{
				"deps":    []any{map[string]any{"name": "glibc", "origin": "core", "release": "20180608041157", "version": "2.27"}},
				"env":     map[string]any{"PATH": "/hab/pkgs/" + ident + "/bin"},
				"exports": map[string]any{"port": "http.port"}, "exposes": []any{"9636"},
				"ident": ident, "origin": origin, "name": name, "version": version, "release": release,
				"path": "/hab/pkgs/" + ident, "svc_path": "/hab/svc/" + name, "svc_user": "hab", "svc_group": "hab",
				"shutdown_signal": "TERM", "shutdown_timeout": 8,
			},
			"process":            map[string]any{"pid": 221, "state": "up", "state_entered": 1536689926},
			"last_process_state": nil, "next_restart_at": nil, "restart_count": 0, "restart_config": map[string]any{},
			"service_group": group, "spec_file": "/hab/sup/default/specs/" + name + ".spec",
			"spec_ident":             map[string]any{"name": name, "origin": origin, "release": nil, "version": nil},
			"svc_encrypted_password": nil, "sys": map[string]any{"ip": "10.0.0.1"}, "topology": "standalone",
			"update_strategy": "none", "update_condition": "latest", "user_config_updated": false,
		}
		if cfg {
			m["cfg"] = map[string]any{"http": map[string]any{"port": 9636}}
		}
		return m
	}
	body, err := json.Marshal([]any{
		svc("builder-api.default", "habitat", "builder-api", "7602", "20180906202535", true),
		svc("redis.prod", "core", "redis", "6.2.6", "20210603120000", false),
	})
	if err != nil {
		t.Fatal(err)
	}
	url := serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	svcs, err := supervisor.Client{URL: url + "/services"}.Services(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []supervisor.Service{
		{Group: "builder-api.default", Ident: pkgstore.MustParseIdent("habitat/builder-api/7602/20180906202535")},
		{Group: "redis.prod", Ident: pkgstore.MustParseIdent("core/redis/6.2.6/20210603120000")},
	}
	if len(svcs) != 2 || svcs[0] != want[0] || svcs[1] != want[1] {
		t.Fatalf("services %+v, want %+v", svcs, want)
	}
}

package pkgstore

import (
	"strings"
	"testing"
)

// Spec files are read as the Supervisor reads them: serde's derive over
// ServiceSpec (components/sup/src/manager/service/spec.rs in habitat-sh/habitat)
// matches keys case-sensitively, ignores unknown keys, and fails the whole
// spec on a known key of the wrong type or value (the Supervisor then skips
// the file: spec_dir.rs).
func TestParseServiceSpecAsServiceSpec(t *testing.T) {
	const id = "ident = \"core/redis/6.2.5\"\n"
	tests := []struct {
		name, in  string
		wantIdent string // "" when it must fail
		wantState string
		err       string
	}{
		{"later Ident is another key", id + "Ident = \"core/redis/6.2.6\"\n", "core/redis/6.2.5", "up", ""},
		{"Ident alone is no ident", "Ident = \"core/redis/6.2.6\"\n", "", "", `no "ident"`},
		{"IDENT alone is no ident", "IDENT = \"core/redis\"\n", "", "", `no "ident"`},
		{"Desired_State is ignored", id + "Desired_State = \"down\"\n", "core/redis/6.2.5", "up", ""},
		{"unknown keys ignored", id + "colour = 5\n[whatever]\nx = 1\n", "core/redis/6.2.5", "up", ""},
		{"desired_state any case", id + "desired_state = \"DOWN\"\n", "core/redis/6.2.5", "down", ""},
		{"desired_state Up", id + "desired_state = \"Up\"\n", "core/redis/6.2.5", "up", ""},
		{"desired_state bad", id + "desired_state = \"sideways\"\n", "", "", "desired_state"},
		{"desired_state not a string", id + "desired_state = 1\n", "", "", "desired_state"},
		{"ident not a string", "ident = 5\n", "", "", "ident"},
		{"group not a string", id + "group = 5\n", "", "", "group"},
		{"bldr_url not a string", id + "bldr_url = true\n", "", "", "bldr_url"},
		{"channel not a string", id + "channel = [\"stable\"]\n", "", "", "channel"},
		{"config_from not a string", id + "config_from = 1\n", "", "", "config_from"},
		{"svc_encrypted_password not a string", id + "svc_encrypted_password = 1\n", "", "", "svc_encrypted_password"},
		{"all of Habitat's own test spec", id + `group = "jobs"
bldr_url = "http://example.com/depot"
channel = "unstable"
topology = "leader"
update_strategy = "rolling"
update_condition = "track-channel"
binds = ["cache:redis.cache@acmecorp", "db:postgres.app"]
binding_mode = "relaxed"
config_from = "/only/for/development"
desired_state = "down"
shutdown_timeout = 10
svc_encrypted_password = "x"

[health_check_interval]
secs = 5
nanos = 0
`, "core/redis/6.2.5", "down", ""},
		{"topology bad", id + "topology = \"smartest-possible\"\n", "", "", "topology"},
		{"topology case", id + "topology = \"Leader\"\n", "", "", "topology"},
		{"update_strategy bad", id + "update_strategy = \"at_once\"\n", "", "", "update_strategy"},
		{"update_strategy none", id + "update_strategy = \"none\"\n", "core/redis/6.2.5", "up", ""},
		{"update_condition bad", id + "update_condition = \"newest\"\n", "", "", "update_condition"},
		{"binding_mode case", id + "binding_mode = \"Strict\"\n", "", "", "binding_mode"},
		{"binds bad element", id + "binds = [\"magic:magicness.default\", \"winning\"]\n", "", "", "binds"},
		{"binds two colons", id + "binds = [\"a:b:c.d\"]\n", "", "", "binds"},
		{"binds no group", id + "binds = [\"a:b\"]\n", "", "", "binds"},
		{"binds not an array", id + "binds = \"a:b.c\"\n", "", "", "binds"},
		{"binds number", id + "binds = [1]\n", "", "", "binds"},
		{"binds empty", id + "binds = []\n", "core/redis/6.2.5", "up", ""},
		{"binds app#env prefix", id + "binds = [\"a:app.env#b.c@org\"]\n", "core/redis/6.2.5", "up", ""},
		{"shutdown_timeout negative", id + "shutdown_timeout = -1\n", "", "", "shutdown_timeout"},
		{"shutdown_timeout over u32", id + "shutdown_timeout = 4294967296\n", "", "", "shutdown_timeout"},
		{"shutdown_timeout max u32", id + "shutdown_timeout = 4294967295\n", "core/redis/6.2.5", "up", ""},
		{"shutdown_timeout string", id + "shutdown_timeout = \"10\"\n", "", "", "shutdown_timeout"},
		{"health_check_interval integer", id + "health_check_interval = 30\n", "", "", "health_check_interval"},
		{"health_check_interval without nanos", id + "[health_check_interval]\nsecs = 30\n", "", "", "nanos"},
		{"health_check_interval unknown field", id + "[health_check_interval]\nsecs = 30\nnanos = 0\nmillis = 1\n", "", "", "millis"},
		{"health_check_interval nanos over u32", id + "[health_check_interval]\nsecs = 30\nnanos = 4294967296\n", "", "", "nanos"},
		{"health_check_interval secs negative", id + "[health_check_interval]\nsecs = -1\nnanos = 0\n", "", "", "secs"},
		{"health_check_interval as a pair", id + "health_check_interval = [30, 0]\n", "core/redis/6.2.5", "up", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, state, err := ParseServiceSpec("redis", []byte(tt.in))
			if tt.wantIdent == "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v %q, error %v; want an error naming %q", got, state, err, tt.err)
				}
				return
			}
			if err != nil || got.String() != tt.wantIdent || state != tt.wantState {
				t.Fatalf("got %v %q, error %v; want %s %q", got, state, err, tt.wantIdent, tt.wantState)
			}
		})
	}
}

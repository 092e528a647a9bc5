package pkgstore

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// The fields of a Supervisor spec as Habitat deserializes them: serde's
// derive over ServiceSpec (habitat-sh/habitat
// components/sup/src/manager/service/spec.rs), #[serde(default)] and
// without deny_unknown_fields. So keys are matched exactly (`Ident` is not
// `ident`), unknown keys are ignored, an absent key takes its default, and
// a known key of the wrong type or value fails the whole spec, which the
// Supervisor then skips (components/sup/src/manager/spec_dir.rs).

// specEnums are the unit enums of the spec, with the names serde accepts:
// the prost enums of components/sup-protocol/protocols/types.proto, derived
// with #[serde(rename_all = "kebab-case")] (components/sup-protocol/build.rs).
var specEnums = map[string][]string{
	"topology":         {"standalone", "leader"},
	"update_strategy":  {"none", "at-once", "rolling"},
	"update_condition": {"latest", "track-channel"},
	"binding_mode":     {"relaxed", "strict"},
}

// specStrings are the fields deserialized from a TOML string: String,
// ChannelIdent (a newtype of String), PathBuf and Option<String>.
var specStrings = []string{"group", "bldr_url", "channel", "config_from", "svc_encrypted_password"}

// serviceGroupRE is ServiceGroup's SG_FROM_STR_RE
// (components/core/src/service.rs).
var serviceGroupRE = regexp.MustCompile(`^(?:[^#@]+#)?[^#@.]+\.[^#@.]+(?:@[^#@.]+)?$`)

// specFields checks doc, a spec's TOML decoded as a table, as ServiceSpec's
// deserialization would, and returns its ident (empty when absent) and its
// desired state ("up" when absent).
func specFields(doc map[string]any) (ident, state string, err error) {
	if v, ok := doc["ident"]; ok {
		s, ok := v.(string)
		if !ok {
			return "", "", fieldType("ident", v, "a string")
		}
		ident = s
	}
	state = "up"
	if v, ok := doc["desired_state"]; ok {
		// util::serde::string, then DesiredState::from_str, which
		// lowercases first.
		s, ok := v.(string)
		if !ok {
			return "", "", fieldType("desired_state", v, "a string")
		}
		switch strings.ToLower(s) {
		case "up":
		case "down":
			state = "down"
		default:
			return "", "", fmt.Errorf(`field "desired_state": %q is neither "up" nor "down"`, s)
		}
	}
	for _, k := range specStrings {
		if v, ok := doc[k]; ok {
			if _, ok := v.(string); !ok {
				return "", "", fieldType(k, v, "a string")
			}
		}
	}
	keys := make([]string, 0, len(specEnums))
	for k := range specEnums {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, ok := doc[k]
		if !ok {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return "", "", fieldType(k, v, "a string")
		}
		if !contains(specEnums[k], s) {
			return "", "", fmt.Errorf("field %q: %q is not one of %s", k, s, strings.Join(specEnums[k], ", "))
		}
	}
	if v, ok := doc["binds"]; ok {
		if err := specBinds(v); err != nil {
			return "", "", err
		}
	}
	if v, ok := doc["shutdown_timeout"]; ok {
		// ShutdownTimeout is #[serde(from = "u32")]
		// (components/core/src/os/process.rs).
		if err := unsigned("shutdown_timeout", v, math.MaxUint32); err != nil {
			return "", "", err
		}
	}
	if v, ok := doc["health_check_interval"]; ok {
		if err := specInterval(v); err != nil {
			return "", "", err
		}
	}
	return ident, state, nil
}

// specBinds checks binds, a Vec<ServiceBind>: each a string NAME:GROUP,
// split on every ':' into exactly two parts, the second a service group
// (ServiceBind::from_str, components/core/src/service.rs).
func specBinds(v any) error {
	arr, ok := v.([]any)
	if !ok {
		return fieldType("binds", v, "an array of strings")
	}
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return fmt.Errorf(`field "binds": element %d is %s, not a string`, i+1, tomlType(e))
		}
		parts := strings.Split(s, ":")
		if len(parts) != 2 || !serviceGroupRE.MatchString(parts[1]) {
			return fmt.Errorf(`field "binds": %q is not a bind NAME:SERVICE.GROUP[@ORG]`, s)
		}
	}
	return nil
}

// specInterval checks health_check_interval, a newtype of
// std::time::Duration, which serde reads as a table with exactly the
// fields secs (u64) and nanos (u32), both required, or as the pair
// [secs, nanos] (serde's impl Deserialize for Duration).
func specInterval(v any) error {
	const f = "health_check_interval"
	switch t := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(t))
		for k := range t {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if k != "secs" && k != "nanos" {
				return fmt.Errorf("field %q: unknown field %q, expected secs or nanos", f, k)
			}
		}
		for _, k := range []string{"secs", "nanos"} {
			x, ok := t[k]
			if !ok {
				return fmt.Errorf("field %q: missing field %q", f, k)
			}
			if err := unsigned(f+"."+k, x, limitOf(k)); err != nil {
				return err
			}
		}
		return nil
	case []any:
		if len(t) != 2 {
			return fmt.Errorf("field %q: an array of %d elements, not [secs, nanos]", f, len(t))
		}
		if err := unsigned(f+".secs", t[0], math.MaxInt64); err != nil {
			return err
		}
		return unsigned(f+".nanos", t[1], math.MaxUint32)
	default:
		return fieldType(f, v, "a table with secs and nanos")
	}
}

func limitOf(field string) uint64 {
	if field == "nanos" {
		return math.MaxUint32
	}
	return math.MaxInt64 // a TOML integer is an i64: any non-negative one fits u64
}

// unsigned checks that v is a TOML integer from 0 to max.
func unsigned(field string, v any, max uint64) error {
	n, ok := v.(int64)
	if !ok {
		return fieldType(field, v, "an integer")
	}
	if n < 0 || uint64(n) > max {
		return fmt.Errorf("field %q: %d is out of range (0 to %d)", field, n, max)
	}
	return nil
}

func fieldType(field string, v any, want string) error {
	return fmt.Errorf("field %q is %s, not %s", field, tomlType(v), want)
}

// tomlType names the TOML type of a value go-toml decoded.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	default:
		return "a date or time"
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

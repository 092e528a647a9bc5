package pkgstore

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// A spec's fields as serde derives ServiceSpec (sup/src/manager/service/
// spec.rs): keys exact, unknown ones ignored, a known one of the wrong
// type or value failing the whole spec.

// specEnums: sup-protocol/protocols/types.proto, kebab-case.
var specEnums = map[string][]string{
	"topology":         {"standalone", "leader"},
	"update_strategy":  {"none", "at-once", "rolling"},
	"update_condition": {"latest", "track-channel"},
	"binding_mode":     {"relaxed", "strict"},
}

// specStrings are the fields read from a TOML string.
var specStrings = []string{"group", "bldr_url", "channel", "config_from", "svc_encrypted_password"}

// serviceGroupRE is ServiceGroup's SG_FROM_STR_RE
// (components/core/src/service.rs).
var serviceGroupRE = regexp.MustCompile(`^(?:[^#@]+#)?[^#@.]+\.[^#@.]+(?:@[^#@.]+)?$`)

// specFields checks a decoded spec and returns its ident and desired state.
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

// specBinds checks binds as ServiceBind::from_str (core/src/service.rs).
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

// specInterval checks health_check_interval, a Duration: {secs, nanos} or
// [secs, nanos].
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

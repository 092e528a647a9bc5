package main

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/retention"
)

func (c *config) raw(key string) string {
	switch v := c.v.Get(key).(type) {
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, ";")
	case []string:
		return strings.Join(v, ";")
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

func (c *config) bad(key, why string) error {
	return usageError{fmt.Errorf("invalid %s %q (from %s): %s", strings.ReplaceAll(key, "_", "-"), c.raw(key), c.source(key), why)}
}

func (c *config) count(key string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(c.raw(key)))
	switch {
	case err == nil && n < 0:
		return 0, c.bad(key, strings.ReplaceAll(key, "_", "-")+" cannot be negative")
	case err != nil:
		return 0, c.bad(key, "must be a whole number, 0 or more")
	}
	return n, nil
}

func (c *config) boolean(key string) (bool, error) {
	if !c.isSet(key) {
		return false, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(c.raw(key)))
	if err != nil {
		return false, c.bad(key, "must be true or false")
	}
	return b, nil
}

// booleans reads each key into its bool, in key order.
func (c *config) booleans(to map[string]*bool) error {
	for _, key := range slices.Sorted(maps.Keys(to)) {
		var err error
		if *to[key], err = c.boolean(key); err != nil {
			return err
		}
	}
	return nil
}

func (c *config) list(key string) []string { return items(c.v.Get(key)) }

// items are a list's items: repeated flags, a TOML array, or a variable's
// separated by ";" (constraints hold spaces and commas).
func items(v any) []string {
	var parts, out []string
	switch v := v.(type) {
	case nil:
	case []string:
		parts = v
	case []any:
		for _, x := range v {
			parts = append(parts, fmt.Sprint(x))
		}
	default:
		parts = strings.Split(fmt.Sprint(v), ";")
	}
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// lockTimeout is lock_timeout as ApplyOptions.LockTimeout means it.
func (c *config) lockTimeout() (time.Duration, error) {
	if !c.isSet("lock_timeout") {
		return 0, nil
	}
	return c.durationSetting("lock_timeout", retention.NoLockWait)
}

func (c *config) durationSetting(key string, none time.Duration) (time.Duration, error) {
	d, err := retention.ParseDuration(c.raw(key), none)
	if err != nil {
		return 0, c.bad(key, `must be a duration such as 90s, 10m or 2h, or none`)
	}
	return d, nil
}

// minAge refuses a bare 0: it means none elsewhere.
func (c *config) minAge() (time.Duration, error) {
	d, err := c.durationSetting("min_age", retention.NoMinAge)
	if err == nil && d == 0 {
		return 0, c.bad("min_age", "say none for no minimum age, or leave it out for the default (1h)")
	}
	return d, err
}

func addPaceFlag(cmd *cobra.Command, def string) {
	cmd.Flags().String("pace", "", "how deleting yields to the disk's other users: auto (slow down while the disk is slow, at a low I/O priority), off (full speed), or the `LATENCY` above which to slow down, such as 5ms (default "+def+")")
}

// pace is the pace setting as ApplyOptions.Pace means it, def unset.
func (c *config) pace(def time.Duration) (time.Duration, error) {
	if !c.isSet("pace") {
		return def, nil
	}
	switch v := strings.ToLower(strings.TrimSpace(c.raw("pace"))); v {
	case "auto":
		return retention.PaceAuto, nil
	case "off":
		return 0, nil
	default:
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			return 0, c.bad("pace", "must be auto, off, or the latency above which deleting slows down, such as 5ms")
		case d == 0:
			return 0, c.bad("pace", "a latency of 0 would pace everything to a halt: say off for full speed, or auto")
		case d < 0:
			return 0, c.bad("pace", "a latency cannot be negative")
		case d > retention.MaxPace:
			return 0, c.bad("pace", fmt.Sprintf("a latency over %s is never reached: say auto, or off for full speed", retention.MaxPace))
		}
		return d, nil
	}
}

package main

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/hab-gc/hab-gc/retention"
)

// flagExcludeSource is the source of the pins given on the command line.
const flagExcludeSource = "flag --exclude"

// pins returns the excludes of every source, added up: a scheduled job's
// (its definition's exclude), --exclude, HAB_GC_EXCLUDE and the config
// file's exclude, in that order, each with its source. A pin is a promise:
// no source drops another's (unlike the other settings, which follow flag >
// environment > config file). A pin repeated by one source counts once.
func (c *config) pins() ([]retention.Exclude, error) {
	s := c.setting("exclude")
	type sourced struct {
		items  []string
		source string
	}
	var all []sourced
	if len(c.jobPins) > 0 {
		all = append(all, sourced{c.jobPins, c.jobPinSource})
	}
	if c.flagChanged(s) {
		v, _ := c.cmd.Flags().GetStringArray(s.flag)
		all = append(all, sourced{v, flagExcludeSource})
	}
	if e, v, ok := c.envValue(s); ok {
		all = append(all, sourced{strings.Split(v, ";"), "environment variable " + e})
	}
	// The config file's own value, which the flag and the environment
	// would override in viper.
	var file map[string]any
	if c.data != nil {
		if err := toml.Unmarshal(c.data, &file); err != nil {
			return nil, usageError{configFileError(c.file, err)}
		}
	}
	if v, ok := file[s.key]; ok {
		var items []string
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				items = append(items, fmt.Sprint(x))
			}
		default:
			items = strings.Split(fmt.Sprint(v), ";")
		}
		all = append(all, sourced{items, fmt.Sprintf("config key %q in %s", s.key, c.file)})
	}
	var out []retention.Exclude
	seen := map[[2]string]bool{}
	for _, src := range all {
		for _, item := range src.items {
			if item = strings.TrimSpace(item); item == "" || seen[[2]string{item, src.source}] {
				continue
			}
			seen[[2]string{item, src.source}] = true
			ex, err := retention.ParsePin(item)
			if err != nil {
				return nil, usageError{fmt.Errorf("invalid exclude (from %s): %v", src.source, err)}
			}
			ex.Source = src.source
			out = append(out, ex)
		}
	}
	return out, nil
}

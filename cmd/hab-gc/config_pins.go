package main

import (
	"fmt"
	"os"
	"strings"

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
	all := []sourced{{c.jobPins, c.jobPinSource}}
	if c.flagChanged(s) {
		v, _ := c.cmd.Flags().GetStringArray(s.flag)
		all = append(all, sourced{v, flagExcludeSource})
	}
	if e, ok := c.envSource(s); ok {
		all = append(all, sourced{items(os.Getenv(e)), "environment variable " + e})
	}
	all = append(all, sourced{items(c.fromFile[s.key]), fmt.Sprintf("config key %q in %s", s.key, c.file)})
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

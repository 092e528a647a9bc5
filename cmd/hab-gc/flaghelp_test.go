package main

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commandLineOnly are the flags that are not settings (no environment
// variable, no config key): what one invocation does, not how a machine
// is configured. Any other flag must be a setting.
var commandLineOnly = map[string]bool{
	"help": true, "version": true, "json": true, "config": true, // --config: env HAB_GC_CONFIG, checked below
	"dry-run": true, "verbose": true,
	"schedules": true, "state": true, "now": true, "timezone": true, "catch-up-spread": true,
	"once": true, "job": true, "log-format": true, "metrics-listen": true,
	"format": true, "since": true, "exe": true, "out": true, "count": true, "store": true,
	"remove":          true, // hab-gc binlinks --remove
	"allow-keep-none": true, // a confirmation, typed for the one run it confirms
}

// definitionOnly are flags that stand for a definition's field (schedule
// next --keep-latest is [prune] keep_latest), not for the setting of the
// same name.
var definitionOnly = map[string]bool{
	"hab-gc schedule next --exclude": true, "hab-gc schedule next --keep-latest": true, "hab-gc schedule next --min-age": true,
}

// Every flag's help names its environment variable and
// config key, once each, in the same words; the flags that are not
// settings are listed above.
func TestFlagHelpNamesEnvAndKey(t *testing.T) {
	bySetting := map[string]setting{}
	for _, s := range settings() {
		bySetting[s.flag] = s
	}
	root := newRootCmd(io.Discard, io.Discard, noEnv)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			where := c.CommandPath() + " --" + f.Name
			s, ok := bySetting[f.Name]
			if definitionOnly[where] {
				return
			}
			if !ok {
				if !commandLineOnly[f.Name] {
					t.Errorf("%s is neither a setting (env var and config key) nor a command-line-only flag: %q", where, f.Usage)
				}
				if f.Name == "config" && !strings.Contains(f.Usage, "env HAB_GC_CONFIG") {
					t.Errorf("%s: help does not name HAB_GC_CONFIG: %q", where, f.Usage)
				}
				return
			}
			if !strings.Contains(f.Usage, "env "+s.env[0]) {
				t.Errorf("%s: help does not name env %s: %q", where, s.env[0], f.Usage)
			}
			if n := strings.Count(f.Usage, "config key "+s.key); n != 1 {
				t.Errorf("%s: help names config key %s %d times: %q", where, s.key, n, f.Usage)
			}
			if strings.Contains(f.Usage, "config "+s.key) || strings.Count(f.Usage, "(env ") > 1 {
				t.Errorf("%s: help names its setting twice or in other words: %q", where, f.Usage)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// setting is one configurable value; the first variable set wins.
type setting struct {
	key  string
	flag string
	env  []string
}

// settings lists every configurable value; its variable is HAB_GC_KEY
// unless listed in vars.
func settings() []setting {
	vars := map[string][]string{
		"fs_root":     {"FS_ROOT"},
		"keep_latest": {"HAB_GC_KEEP_LATEST", "HAB_KEEP_LATEST", supKeepLatestEnv},
	}
	var out []setting
	for _, key := range strings.Fields(`fs_root target keep_latest self_keep_latest exclude only services_only no_deps
		free_deps only_supervisor_installed watch_whole_package keep_latest_for watch_all watch_delay on_unload
		unload_grace min_age install_window ignore_uninstall_hooks allow_damaged allow_unmatched strict lock_timeout
		runtime_roots sup_gateway sup_gateway_ca_certs sup_gateway_certs sup_gateway_key min_free max_free cache
		cache_keep_latest metrics_file pace`) {
		env, ok := vars[key]
		if !ok {
			env = []string{"HAB_GC_" + strings.ToUpper(key)}
		}
		flag := strings.ReplaceAll(strings.TrimPrefix(key, "watch_"), "_", "-") // watch's flags: --all, --delay
		out = append(out, setting{key, flag, env})
	}
	return out
}

// supKeepLatestEnv is the Supervisor's per-service count
// (components/sup/src/manager.rs, maybe_uninstall_old_packages); its
// services inherit it, so its 0 is read only by watch.
const supKeepLatestEnv = "HAB_KEEP_LATEST_PACKAGES"

// vars are the variables viper reads s from.
func (c *config) vars(s setting) []string {
	if s.key == "keep_latest" && supKeepNone() && !c.supervisor {
		return s.env[:len(s.env)-1]
	}
	return s.env
}

func supKeepNone() bool {
	n, err := strconv.Atoi(strings.TrimSpace(os.Getenv(supKeepLatestEnv)))
	return err == nil && n == 0
}

func (c *config) known(key string) bool {
	return slices.ContainsFunc(settings(), func(s setting) bool { return s.key == key })
}

func (c *config) setting(key string) setting {
	for _, s := range settings() {
		if s.key == key {
			return s
		}
	}
	panic("unknown setting " + key)
}

func (c *config) flagChanged(s setting) bool {
	f := c.cmd.Flags().Lookup(s.flag)
	return f != nil && f.Changed
}

func (c *config) envSource(s setting) (string, bool) {
	for _, e := range c.vars(s) {
		if os.Getenv(e) != "" {
			return e, true
		}
	}
	return "", false
}

// source names where a setting's value came from, for messages.
func (c *config) source(key string) string {
	s := c.setting(key)
	if src, ok := c.given[key]; ok {
		return src
	}
	if c.flagChanged(s) {
		return "flag --" + s.flag
	}
	if e, ok := c.envSource(s); ok {
		return "environment variable " + e
	}
	if c.file != "" && c.v.InConfig(key) {
		return fmt.Sprintf("config key %q in %s", key, c.file)
	}
	if key == "keep_latest" && c.supCount != "" {
		return c.supCount
	}
	return "default"
}

func (c *config) isSet(key string) bool { return c.source(key) != "default" }

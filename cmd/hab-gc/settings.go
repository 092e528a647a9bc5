package main

import (
	"fmt"
	"os"
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
	for _, kf := range [][2]string{
		{"fs_root", "fs-root"}, {"target", "target"}, {"keep_latest", "keep-latest"},
		{"self_keep_latest", "self-keep-latest"}, {"exclude", "exclude"}, {"only", "only"},
		{"services_only", "services-only"}, {"no_deps", "no-deps"}, {"free_deps", "free-deps"},
		{"only_supervisor_installed", "only-supervisor-installed"},
		{"watch_whole_package", "whole-package"}, {"keep_latest_for", "keep-latest-for"},
		{"watch_all", "all"}, {"watch_delay", "delay"}, {"on_unload", "on-unload"},
		{"unload_grace", "unload-grace"}, {"min_age", "min-age"}, {"install_window", "install-window"},
		{"ignore_uninstall_hooks", "ignore-uninstall-hooks"}, {"allow_damaged", "allow-damaged"},
		{"allow_unmatched", "allow-unmatched"}, {"strict", "strict"}, {"lock_timeout", "lock-timeout"},
		{"runtime_roots", "runtime-roots"}, {"sup_gateway", "sup-gateway"},
		{"sup_gateway_ca_certs", "sup-gateway-ca-certs"}, {"sup_gateway_certs", "sup-gateway-certs"},
		{"sup_gateway_key", "sup-gateway-key"}, {"min_free", "min-free"}, {"max_free", "max-free"},
		{"cache", "cache"}, {"cache_keep_latest", "cache-keep-latest"}, {"metrics_file", "metrics-file"},
		{"pace", "pace"},
	} {
		env, ok := vars[kf[0]]
		if !ok {
			env = []string{"HAB_GC_" + strings.ToUpper(kf[0])}
		}
		out = append(out, setting{kf[0], kf[1], env})
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
	for _, s := range settings() {
		if s.key == key {
			return true
		}
	}
	return false
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

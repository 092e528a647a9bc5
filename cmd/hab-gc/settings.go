package main

import (
	"fmt"
	"strconv"
	"strings"
)

// setting is one configurable value: its config key, flag and
// environment variables (the first one set wins).
type setting struct {
	key  string
	flag string
	env  []string
}

// settings lists every configurable value.
func settings() []setting {
	return []setting{
		{"fs_root", "fs-root", []string{"FS_ROOT"}},
		{"target", "target", []string{"HAB_GC_TARGET"}},
		{"keep_latest", "keep-latest", []string{"HAB_KEEP_LATEST", "HAB_KEEP_LATEST_PACKAGES"}},
		{"self_keep_latest", "self-keep-latest", []string{"HAB_GC_SELF_KEEP_LATEST"}},
		{"exclude", "exclude", []string{"HAB_GC_EXCLUDE"}},
		{"only", "only", []string{"HAB_GC_ONLY"}},
		{"services_only", "services-only", []string{"HAB_GC_SERVICES_ONLY"}},
		{"no_deps", "no-deps", []string{"HAB_GC_NO_DEPS"}},
		{"free_deps", "free-deps", []string{"HAB_GC_FREE_DEPS"}},
		{"watch_whole_package", "whole-package", []string{"HAB_GC_WATCH_WHOLE_PACKAGE"}},
		{"keep_latest_for", "keep-latest-for", []string{"HAB_GC_KEEP_LATEST_FOR"}},
		{"watch_all", "all", []string{"HAB_GC_WATCH_ALL"}},
		{"watch_delay", "delay", []string{"HAB_GC_WATCH_DELAY"}},
		{"on_unload", "on-unload", []string{"HAB_GC_ON_UNLOAD"}},
		{"unload_grace", "unload-grace", []string{"HAB_GC_UNLOAD_GRACE"}},
		{"min_age", "min-age", []string{"HAB_GC_MIN_AGE"}},
		{"install_window", "install-window", []string{"HAB_GC_INSTALL_WINDOW"}},
		{"ignore_uninstall_hooks", "ignore-uninstall-hooks", []string{"HAB_GC_IGNORE_UNINSTALL_HOOKS"}},
		{"allow_damaged", "allow-damaged", []string{"HAB_GC_ALLOW_DAMAGED"}},
		{"allow_unmatched", "allow-unmatched", []string{"HAB_GC_ALLOW_UNMATCHED"}},
		{"strict", "strict", []string{"HAB_GC_STRICT"}},
		{"lock_timeout", "lock-timeout", []string{"HAB_GC_LOCK_TIMEOUT"}},
		{"runtime_roots", "runtime-roots", []string{"HAB_GC_RUNTIME_ROOTS"}},
		{"sup_gateway", "sup-gateway", []string{"HAB_GC_SUP_GATEWAY"}},
		{"sup_gateway_ca_certs", "sup-gateway-ca-certs", []string{"HAB_GC_SUP_GATEWAY_CA_CERTS"}},
		{"sup_gateway_certs", "sup-gateway-certs", []string{"HAB_GC_SUP_GATEWAY_CERTS"}},
		{"sup_gateway_key", "sup-gateway-key", []string{"HAB_GC_SUP_GATEWAY_KEY"}},
		{"min_free", "min-free", []string{"HAB_GC_MIN_FREE"}},
		{"max_free", "max-free", []string{"HAB_GC_MAX_FREE"}},
		{"cache", "cache", []string{"HAB_GC_CACHE"}},
		{"cache_keep_latest", "cache-keep-latest", []string{"HAB_GC_CACHE_KEEP_LATEST"}},
		{"metrics_file", "metrics-file", []string{"HAB_GC_METRICS_FILE"}},
	}
}

// supKeepLatestEnv is the Supervisor's HAB_KEEP_LATEST_PACKAGES (hab sup
// run --keep-latest-packages): after a service starts, the Supervisor
// keeps that many releases of that service's package only
// (components/sup/src/manager.rs, maybe_uninstall_old_packages). Its
// services inherit it, so its 0 is never read as a store-wide keep of
// none (see envValue).
const supKeepLatestEnv = "HAB_KEEP_LATEST_PACKAGES"

// envValue returns the first environment variable of s that is set (not
// empty), with its value. HAB_KEEP_LATEST_PACKAGES=0 counts as unset: a
// store-wide keep of none must be asked for explicitly (--keep-latest=0,
// HAB_KEEP_LATEST=0, keep_latest = 0), never inherited from the
// Supervisor's per-service variable.
func (c *config) envValue(s setting) (name, val string, ok bool) {
	for _, e := range s.env {
		v, set := c.lookup(e)
		if !set || v == "" {
			continue
		}
		if e == supKeepLatestEnv && supKeepNone(c.lookup) && !c.supervisor {
			continue
		}
		return e, v, true
	}
	return "", "", false
}

// supKeepNone reports whether HAB_KEEP_LATEST_PACKAGES is set to 0.
func supKeepNone(lookup func(string) (string, bool)) bool {
	v, _ := lookup(supKeepLatestEnv)
	n, err := strconv.Atoi(strings.TrimSpace(v))
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

// source names where a setting's value comes from.
func (c *config) source(key string) string {
	s := c.setting(key)
	if c.flagChanged(s) {
		return "flag --" + s.flag
	}
	if e, _, ok := c.envValue(s); ok {
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

// isSet reports whether a setting was given anywhere.
func (c *config) isSet(key string) bool { return c.source(key) != "default" }

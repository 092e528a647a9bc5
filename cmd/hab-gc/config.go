package main

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/internal/suggest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
	"github.com/hab-gc/hab-gc/supervisor"
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

// config resolves settings with the precedence flag > environment >
// config file > default, and says where each value came from.
type config struct {
	v      *viper.Viper
	cmd    *cobra.Command
	lookup func(string) (string, bool)
	file   string
	// warnings are about the settings themselves (a variable ignored),
	// for the command to print on stderr.
	warnings []string
	// data is the config file's TOML, read again where viper would lower
	// the case of keys (keep_latest_for's package names).
	data []byte
	// jobPins are a scheduled job's excludes (its definition's), and
	// jobPinSource where they come from; they add up with the others.
	jobPins      []string
	jobPinSource string
	// supervisor is set for watch, where HAB_KEEP_LATEST_PACKAGES and the
	// Supervisor's sup.toml mean what they mean to the Supervisor (see
	// supcount.go); supCount says where keep_latest came from when it
	// came from sup.toml.
	supervisor bool
	supCount   string
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

// loadConfig binds the command's flags and the environment, then reads the
// config file: --config, else FS_ROOT/hab/etc/hab-gc.toml when present.
func loadConfig(cmd *cobra.Command, lookup func(string) (string, bool)) (*config, error) {
	c := &config{v: viper.New(), cmd: cmd, lookup: lookup, supervisor: cmd.Name() == "watch"}
	for _, s := range settings() {
		if f := cmd.Flags().Lookup(s.flag); f != nil {
			if err := c.v.BindPFlag(s.key, f); err != nil {
				return nil, err
			}
		}
		if _, val, ok := c.envValue(s); ok && !c.flagChanged(s) {
			c.v.Set(s.key, val)
		}
	}
	// Warned when it would have been read (no flag, no HAB_KEEP_LATEST).
	if keep := c.setting("keep_latest"); !c.flagChanged(keep) && supKeepNone(lookup) && !c.supervisor {
		if _, _, ok := c.envValue(keep); !ok {
			c.warnings = append(c.warnings, supKeepLatestEnv+"=0 is ignored: it is the Supervisor's per-service setting (after a service starts, the Supervisor keeps that many releases of that service's package, the one it runs among them; 0: only the one it runs), which hab-gc watch follows, not a store-wide keep of none; to keep none by count say --keep-latest=0, HAB_KEEP_LATEST=0 or keep_latest = 0")
		}
	}
	file, _ := cmd.Flags().GetString("config")
	explicit := file != ""
	if !explicit {
		if v, ok := lookup("HAB_GC_CONFIG"); ok && v != "" {
			file, explicit = v, true
		}
	}
	// The file is read without blocking (a FIFO is refused, not waited
	// on), regular files only, capped at safeio.Limit.
	if err := c.checkFSRoot(); err != nil {
		return nil, err
	}
	var data []byte
	if !explicit {
		candidate := filepath.Join(c.fsRoot(), "hab", "etc", "hab-gc.toml")
		b, err := safeio.ReadFile(candidate, safeio.Limit, safeio.FollowLinks)
		switch {
		case err == nil:
			file, data = candidate, b
		case errors.Is(err, fs.ErrNotExist) && isSymlink(candidate):
			// Something is there, a symlink to what is not (yet): a volume
			// not mounted, a config not deployed. Its settings (pins)
			// would be silently dropped.
			target, _ := os.Readlink(candidate)
			return nil, usageError{fmt.Errorf("config file %s is a symlink to %s, which does not exist; refusing to run without it", candidate, target)}
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		default:
			return nil, usageError{fmt.Errorf("config file %s: %v", candidate, pathless(err))}
		}
	} else {
		b, err := safeio.ReadFile(file, safeio.Limit, safeio.FollowLinks)
		if err != nil {
			return nil, usageError{fmt.Errorf("config file %s: %v", file, pathless(err))}
		}
		data = b
	}
	if file != "" {
		c.v.SetConfigType("toml")
		if err := c.v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, usageError{configFileError(file, err)}
		}
		c.file, c.data = file, data
		if err := c.checkFSRoot(); err != nil {
			return nil, err
		}
		for _, k := range c.v.AllKeys() {
			if !c.known(strings.SplitN(k, ".", 2)[0]) {
				return nil, usageError{fmt.Errorf("config file %s: unknown key %q%s", file, k, didYouMean(k))}
			}
		}
	}
	c.warnZeroMinAge()
	c.warnUnknownEnv()
	c.warnIneffective()
	return c, nil
}

// pathless drops the path an *fs.PathError repeats.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// bareWord recognises a line KEY = WORD, WORD unquoted letters, in the
// line a decode error points at.
func bareWord(de *toml.DecodeError) (key, word string, ok bool) {
	_, ctx, _ := strings.Cut(de.String(), "|")
	line, _, _ := strings.Cut(strings.TrimSpace(ctx), "\n")
	k, v, found := strings.Cut(line, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !found || k == "" || v == "" || strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-") != "" {
		return "", "", false
	}
	switch v {
	case "true", "false", "inf", "nan":
		return "", "", false
	}
	return k, v, true
}

// didYouMean suggests the known key nearest to a misspelt one.
func didYouMean(key string) string {
	var keys []string
	for _, s := range settings() {
		keys = append(keys, s.key)
	}
	return suggest.Hint(key, keys, 2)
}

// noWildcard refuses a glob in a pin or an only entry: Habitat's idents
// have no wildcards, and core/* would otherwise be a package named "*"
// that matches nothing.
func noWildcard(item string) error {
	id, _, _ := strings.Cut(item, "@")
	if strings.ContainsAny(id, "*?[]") {
		return fmt.Errorf("%q: idents take no wildcards; a package is origin/name (core/redis), all its releases included; a version, origin/name/version", item)
	}
	return nil
}

// configFileError names the config file and, for bad TOML, the line and
// column (FILE:LINE:COLUMN: message, as compilers do). A bare word where
// a value belongs (min_age = none) says how to quote it, instead of
// go-toml's guess at a keyword ("nan").
func configFileError(file string, err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if key, word, ok := bareWord(de); ok {
			msg = fmt.Sprintf("%s = %s: a word must be quoted in TOML: %s = %q", key, word, key, word)
		}
		return fmt.Errorf("config file %s:%d:%d: %s", file, row, col, msg)
	}
	return fmt.Errorf("config file %s: %w", file, err)
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

// checkFSRoot refuses an FS root given as the empty string, which would
// otherwise silently mean / (and a flag would override FS_ROOT with it).
// An empty FS_ROOT variable counts as unset, as for every variable.
func (c *config) checkFSRoot() error {
	if c.isSet("fs_root") && c.raw("fs_root") == "" {
		return c.bad("fs_root", "must not be empty (use / for this machine's root)")
	}
	return nil
}

// fsRoot is fs_root (the flag, FS_ROOT or the file), else this machine's
// default: "/", or on Windows SYSTEMDRIVE\ (pkgstore.DefaultFSRoot, as
// Habitat's FS_ROOT_PATH). Without SYSTEMDRIVE there it is "", which every
// library refuses (pkgstore.RequireFSRoot) rather than guess.
func (c *config) fsRoot() string {
	if r := c.raw("fs_root"); r != "" {
		return r
	}
	return hostFSRoot(c.lookup)
}

// hostFSRoot is this machine's FS root when none is named (see fsRoot).
func hostFSRoot(lookup func(string) (string, bool)) string {
	r, _ := pkgstore.DefaultFSRoot(runtime.GOOS, func(k string) string {
		if k == "FS_ROOT" {
			return "" // fs_root's own source, already read
		}
		v, _ := lookup(k)
		return v
	})
	return r
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

// list returns a list setting: repeated flags, a TOML array, or an
// environment variable with items separated by ";" (constraints may hold
// spaces and commas).
func (c *config) list(key string) []string {
	s := c.setting(key)
	if c.flagChanged(s) {
		v, _ := c.cmd.Flags().GetStringArray(s.flag)
		return v
	}
	var out []string
	for _, item := range strings.Split(c.raw(key), ";") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

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
			if err := noWildcard(item); err != nil {
				return nil, usageError{fmt.Errorf("invalid exclude (from %s): %v", src.source, err)}
			}
			ex, err := retention.ParseExclude(item)
			if err != nil {
				return nil, usageError{fmt.Errorf("invalid exclude (from %s): %v", src.source, err)}
			}
			ex.Source = src.source
			out = append(out, ex)
		}
	}
	return out, nil
}

// openStore validates the scan options, then opens the store at the
// configured FS root; a missing or unusable root is a usage error naming
// where the root came from.
func (c *config) openStore() (*pkgstore.Store, pkgstore.Options, error) {
	opts, err := c.scanOptions()
	if err != nil {
		return nil, opts, err
	}
	st, err := c.open()
	return st, opts, err
}

// open opens the store at the configured FS root.
func (c *config) open() (*pkgstore.Store, error) {
	return c.openAt(c.fsRoot())
}

// openAt is open for the FS root root (the schedules' own, when no
// --fs-root is given: see definitionsRoot).
func (c *config) openAt(root string) (*pkgstore.Store, error) {
	st, err := pkgstore.Open(root)
	if err != nil {
		if errors.Is(err, pkgstore.ErrNoStore) {
			from := c.source("fs_root")
			if root != c.fsRoot() {
				from = "the schedule definitions"
			}
			return nil, usageError{fmt.Errorf("%v (FS root from %s)%s", err, from, fsRootHint(root))}
		}
		return nil, err
	}
	return st, nil
}

// fsRootHint suggests the FS root when root names the store itself
// (.../hab/pkgs) or its hab directory, a common slip: the store is
// FS_ROOT/hab/pkgs.
func fsRootHint(root string) string {
	clean := filepath.Clean(root)
	for _, tail := range []string{filepath.Join("hab", "pkgs"), "hab"} {
		if clean == tail || strings.HasSuffix(clean, string(filepath.Separator)+tail) {
			fs := filepath.Dir(clean)
			if tail != "hab" {
				fs = filepath.Dir(fs)
			}
			return fmt.Sprintf("; did you mean --fs-root %s? The store is FS_ROOT/hab/pkgs", fs)
		}
	}
	return ""
}

// pruneSetup is the policy and scan options of a prune: what `run` plans
// with, and what a scheduled prune plans with (see jobConfig), so that
// both make the same plan from the same settings.
func (c *config) pruneSetup(requireKeep bool) (retention.Policy, pkgstore.Options, error) {
	pol, err := c.policy(requireKeep)
	if err != nil {
		return pol, pkgstore.Options{}, err
	}
	opts, err := c.scanOptions()
	return pol, opts, err
}

// scanOptions returns the scan options: target and binlink directories
// (HAB_BINLINK_DIR added when set). Without a target setting, the target
// is the one Habitat runs as, read from its own installed release
// (pkgstore.InferTarget).
func (c *config) scanOptions() (pkgstore.Options, error) {
	o := pkgstore.Options{Target: pkgstore.DefaultTarget(), BinlinkDirs: pkgstore.DefaultBinlinkDirs()}
	if c.raw("target") == "" {
		t, _, err := pkgstore.InferTarget(c.fsRoot())
		switch {
		case errors.Is(err, pkgstore.ErrTargetAmbiguous):
			return o, usageError{fmt.Errorf("which target Habitat runs as is unknown: %v; set it with --target (HAB_GC_TARGET, config key target)", err)}
		case err == nil:
			o.Target = t
		} // the store unreadable: the scan says so
	}
	if t := c.raw("target"); t != "" {
		if !pkgstore.ValidTarget(t) {
			return o, c.bad("target", fmt.Sprintf("not a Habitat package target (one of %s)", strings.Join(pkgstore.KnownTargets(), ", ")))
		}
		o.Target = t
	}
	if d, ok := c.lookup("HAB_BINLINK_DIR"); ok && d != "" {
		o.BinlinkDirs = append(o.BinlinkDirs, d)
	}
	// How long an install directory or a fetched archive counts as an
	// install in progress; it cannot be turned off.
	if c.isSet("install_window") {
		w, err := retention.ParseDuration(c.raw("install_window"), -1)
		if err != nil || w < 0 {
			return o, c.bad("install_window", "must be a duration such as 10m or 2h (0: the default, 1h); installs in progress cannot go unprotected, so there is no none")
		}
		o.InstallWindow = w // 0: pkgstore's default
	}
	return o, nil
}

// lockTimeout returns the lock_timeout setting with the library's meaning
// (ApplyOptions.LockTimeout): 0 (also when unset) is
// retention.DefaultLockTimeout, "none" retention.NoLockWait. Store.Lock
// takes retention.LockWait of it.
func (c *config) lockTimeout() (time.Duration, error) {
	if !c.isSet("lock_timeout") {
		return 0, nil
	}
	return c.durationSetting("lock_timeout", retention.NoLockWait)
}

// durationSetting reads a duration setting as retention.ParseDuration
// does: "none" is none, 0 the default.
func (c *config) durationSetting(key string, none time.Duration) (time.Duration, error) {
	d, err := retention.ParseDuration(c.raw(key), none)
	if err != nil {
		return 0, c.bad(key, `must be a duration such as 90s, 10m or 2h, 0 (the default) or none`)
	}
	return d, nil
}

func errNoPolicy() error {
	return refusedError{errors.New(`no retention policy is set, so nothing will be removed.
Set how many releases of each package to keep, in one of these ways:
  hab-gc run --keep-latest=3
  HAB_KEEP_LATEST=3 hab-gc run
  keep_latest = 3      (in FS_ROOT/hab/etc/hab-gc.toml, or the file given by --config)`)}
}

// policy builds the retention policy. requireKeep refuses when keep_latest
// is set nowhere.
func (c *config) policy(requireKeep bool) (retention.Policy, error) {
	var p retention.Policy
	var err error
	if !c.isSet("keep_latest") {
		if requireKeep {
			return p, errNoPolicy()
		}
	} else if p.KeepLatest, err = c.count("keep_latest"); err != nil {
		return p, err
	}
	// The library's spelling: 0 kept by count is KeepNone; unset (list,
	// why without a policy) plans as KeepNone, its actions not shown.
	p.KeepLatest = retention.KeepCount(p.KeepLatest)
	if c.isSet("self_keep_latest") {
		if p.SelfKeepLatest, err = c.count("self_keep_latest"); err != nil {
			return p, err
		}
		if p.SelfKeepLatest == 0 {
			return p, c.bad("self_keep_latest", "must be 1 or more: Habitat's own packages always keep at least one release")
		}
	}
	if p.Excludes, err = c.pins(); err != nil {
		return p, err
	}
	for _, o := range c.list("only") {
		if err := noWildcard(o); err != nil {
			return p, usageError{fmt.Errorf("invalid only (from %s): %v", c.source("only"), err)}
		}
		id, err := pkgstore.ParseIdent(o)
		if err != nil || id.Release != "" {
			return p, usageError{fmt.Errorf("invalid only %q (from %s): must be ORIGIN/NAME or ORIGIN/NAME/VERSION", o, c.source("only"))}
		}
		p.Only = append(p.Only, id)
	}
	if p.ServicesOnly, err = c.boolean("services_only"); err != nil {
		return p, err
	}
	if p.NoDeps, err = c.boolean("no_deps"); err != nil {
		return p, err
	}
	if p.FreeDeps, err = c.boolean("free_deps"); err != nil {
		return p, err
	}
	if p.KeepLatestFor, err = c.keepLatestFor(); err != nil {
		return p, err
	}
	if err := p.Validate(); err != nil && !errors.Is(err, retention.ErrEmptyPolicy) {
		return p, usageError{fmt.Errorf("%v (from %s)", err, c.source("keep_latest_for"))}
	}
	if c.isSet("min_age") {
		if p.MinAge, err = c.durationSetting("min_age", retention.NoMinAge); err != nil {
			return p, err
		}
	}
	if p.IgnoreUninstallHooks, err = c.boolean("ignore_uninstall_hooks"); err != nil {
		return p, err
	}
	if p.AllowDamaged, err = c.boolean("allow_damaged"); err != nil {
		return p, err
	}
	if p.RootFinders, err = c.rootFinders(); err != nil {
		return p, err
	}
	return p, nil
}

// keepLatestFor reads the per-package counts: repeated
// --keep-latest-for ORIGIN/NAME=N, HAB_GC_KEEP_LATEST_FOR
// ("core/postgresql=5;core/redis=2") or the config file's table
// keep_latest_for = { "core/postgresql" = 5 }, read from the TOML itself
// (viper would lower the case of the package names).
func (c *config) keepLatestFor() ([]retention.PackageCount, error) {
	var items []string
	switch src := c.source("keep_latest_for"); {
	case src == "default":
		return nil, nil
	case strings.HasPrefix(src, "config key"):
		var f struct {
			KeepLatestFor map[string]any `toml:"keep_latest_for"`
		}
		if err := toml.Unmarshal(c.data, &f); err != nil {
			return nil, usageError{fmt.Errorf("invalid keep-latest-for (from %s): must be a table such as { \"core/postgresql\" = 5 }", src)}
		}
		for pkg, n := range f.KeepLatestFor {
			num, ok := n.(int64)
			if !ok {
				return nil, usageError{fmt.Errorf("invalid keep-latest-for %q = %v (from %s): the count must be a whole number, 0 or more", pkg, n, src)}
			}
			items = append(items, fmt.Sprintf("%s=%d", pkg, num))
		}
		slices.Sort(items) // a table has no order; messages and plans are deterministic
	default:
		items = c.list("keep_latest_for")
	}
	var out []retention.PackageCount
	for _, it := range items {
		pc, err := retention.ParsePackageCount(it)
		if err != nil {
			return nil, usageError{fmt.Errorf("invalid keep-latest-for (from %s): %v", c.source("keep_latest_for"), err)}
		}
		out = append(out, pc)
	}
	return out, nil
}

// rootFinders are where the policy looks for releases in use: running
// processes (runtime_roots: true unless turned off; best-effort goes on
// when some process cannot be seen and a write lease cannot stand in) and,
// when sup_gateway is set, the Supervisor's HTTP gateway (token from
// HAB_SUP_GATEWAY_AUTH_TOKEN).
func (c *config) rootFinders() ([]retention.RootFinder, error) {
	var finders []retention.RootFinder
	on, bestEffort := true, false
	if c.isSet("runtime_roots") {
		raw := strings.TrimSpace(c.raw("runtime_roots"))
		if raw == "best-effort" {
			bestEffort = true
		} else {
			var err error
			if on, err = strconv.ParseBool(raw); err != nil {
				return nil, c.bad("runtime_roots", "must be true, false or best-effort")
			}
		}
	}
	if dry, _ := c.cmd.Flags().GetBool("dry-run"); dry && on {
		// A dry run removes nothing: where processes cannot all be seen
		// (a normal user), it shows the plan with what it could see,
		// and its runtime-roots line says what it could not.
		bestEffort = true
	}
	if on {
		finders = append(finders, runroots.Finder{BestEffort: bestEffort})
	}
	raw := strings.TrimSpace(c.raw("sup_gateway"))
	files := supervisor.TLSFiles{CACerts: c.raw("sup_gateway_ca_certs"), Cert: c.raw("sup_gateway_certs"), Key: c.raw("sup_gateway_key")}
	if raw == "" {
		if k := c.firstSet("sup_gateway_ca_certs", "sup_gateway_certs", "sup_gateway_key"); k != "" {
			return nil, c.bad(k, "needs sup-gateway: it is for the Supervisor's gateway served over TLS")
		}
		return finders, nil
	}
	u, err := supervisor.ParseURL(raw)
	if err != nil {
		return nil, c.bad("sup_gateway", err.Error())
	}
	client := supervisor.Client{URL: u}
	client.Token, _ = c.lookup(supervisor.TokenEnv)
	if !files.IsZero() {
		if client.TLS, err = c.gatewayTLS(u, files); err != nil {
			return nil, err
		}
	}
	return append(finders, supervisor.Finder{Client: client}), nil
}

// gatewayTLS reads the gateway's TLS files: the CA that verifies the
// gateway (the root of the Supervisor's --certs) and the client
// certificate and key a Supervisor started with --ca-certs requires.
func (c *config) gatewayTLS(u string, files supervisor.TLSFiles) (*tls.Config, error) {
	if !strings.HasPrefix(u, "https://") {
		return nil, c.bad(c.firstSet("sup_gateway_ca_certs", "sup_gateway_certs", "sup_gateway_key"),
			"needs an https:// sup-gateway ("+u+" is plain http)")
	}
	switch {
	case files.Cert != "" && files.Key == "":
		return nil, c.bad("sup_gateway_certs", "needs sup-gateway-key too: the client certificate's private key")
	case files.Key != "" && files.Cert == "":
		return nil, c.bad("sup_gateway_key", "needs sup-gateway-certs too: the client certificate it is the key of")
	}
	if _, err := supervisor.LoadTLS(supervisor.TLSFiles{CACerts: files.CACerts}); err != nil {
		return nil, c.bad("sup_gateway_ca_certs", err.Error())
	}
	cfg, err := supervisor.LoadTLS(files)
	if err != nil {
		return nil, c.bad("sup_gateway_certs", err.Error())
	}
	return cfg, nil
}

// firstSet returns the first of keys that is set, or "".
func (c *config) firstSet(keys ...string) string {
	for _, k := range keys {
		if c.isSet(k) && c.raw(k) != "" {
			return k
		}
	}
	return ""
}

// pressureLimits returns the free-space limits of a run (min_free,
// max_free), or nil when neither is set: then the plan runs whole. A
// max_free alone is refused; a min_free alone frees up to itself.
func (c *config) pressureLimits() (*pressure.Limits, error) {
	if !c.isSet("min_free") {
		if c.isSet("max_free") {
			return nil, c.bad("max_free", "needs min-free too: below min-free, hab-gc frees up to max-free")
		}
		return nil, nil
	}
	size := func(key string) (pressure.Size, error) {
		s, err := pressure.ParseSize(c.raw(key))
		if err != nil {
			return s, c.bad(key, "must be a size such as 500MB, 2GiB or 10% of the file system")
		}
		return s, nil
	}
	var l pressure.Limits
	var err error
	if l.MinFree, err = size("min_free"); err != nil {
		return nil, err
	}
	l.MaxFree = l.MinFree
	if c.isSet("max_free") {
		if l.MaxFree, err = size("max_free"); err != nil {
			return nil, err
		}
	}
	return &l, nil
}

// addPolicyFlags adds the retention policy flags to a command.
func addPolicyFlags(fs *pflag.FlagSet) {
	// Counts are strings so that a bad value is reported as every other
	// setting's is, and so that the bare --keep-latest can mean 1 while
	// "--keep-latest 3" still means 3 (see joinOptionalValues).
	fs.String("keep-latest", "", "keep the newest `N` releases of each origin/name (--keep-latest N, --keep-latest=N; a bare --keep-latest means 1)")
	fs.Lookup("keep-latest").NoOptDefVal = "1"
	fs.String("self-keep-latest", "", "`N` releases to keep of each of Habitat's own packages (chef/hab, chef/hab-sup, chef/hab-launcher and their core/ predecessors); unset, no chef/hab release is ever removed (as hab pkg uninstall) and chef/hab-sup, chef/hab-launcher keep --keep-latest, at least 1")
	fs.StringArray("exclude", nil, "never remove releases matching IDENT[@CONSTRAINT], e.g. core/redis, core/redis/6.2.6 or 'core/postgresql@>=11 <12' (repeatable)")
	fs.StringArray("only", nil, "only remove releases of ORIGIN/NAME (or ORIGIN/NAME/VERSION, keeping the newest --keep-latest of that version) and the dependencies only they needed (repeatable)")
	fs.StringArray("keep-latest-for", nil, "per-package count `ORIGIN/NAME=N`: keep the newest N releases of that package instead of --keep-latest (repeatable; env HAB_GC_KEEP_LATEST_FOR: core/postgresql=5;core/redis=2)")
	fs.Bool("services-only", false, "only remove releases of loaded services' packages (their spec idents: a spec pinned to core/redis/6.2.5 keeps the newest --keep-latest of 6.2.5 and leaves other versions alone) and the dependencies only they needed")
	fs.Bool("no-deps", false, "keep the dependencies that a limited purge (--only, --services-only) frees, as hab pkg uninstall --no-deps; a loaded service's version-pinned spec keeps the newest --keep-latest of that version")
	fs.Bool("free-deps", false, "keep-latest counts what a package is for, not what it is needed for: with --only or --services-only, the dependencies only the removed releases needed go whatever their own package's count (as the Supervisor's purge); store-wide, the older releases of a package other packages need are kept only while a kept release needs them (its newest stays by count)")
	fs.String("min-age", "", "keep releases installed less than this long ago (default 1h, also 0; none turns it off)")
	fs.String("install-window", "", "an install directory, download or fetched archive changed less than this long ago is an install in progress, and removals wait for it (default 1h, also 0; it cannot be turned off)")
	fs.Bool("ignore-uninstall-hooks", false, "allow removing the last release of a package that ships an uninstall hook (hab-gc never runs hooks)")
	fs.Bool("allow-damaged", false, "plan despite a damaged store: damaged releases and all they name are kept (where what a release needs cannot be read at all, no release is removed)")
	fs.String("runtime-roots", "true", "keep every release a running process uses (executes, maps, holds open, works in, names in its environment or command line), read from /proc; where /proc does not show every process fully, the releases to remove are checked with write leases, and the run is refused if they cannot be: best-effort goes on then, false turns it off (env HAB_GC_RUNTIME_ROOTS)")
	fs.Lookup("runtime-roots").NoOptDefVal = "true"
	fs.String("sup-gateway-ca-certs", "", "PEM `FILE` of the CA that verifies an https sup-gateway (the root CA of the Supervisor's --certs; default: the system's roots)")
	fs.String("sup-gateway-certs", "", "PEM `FILE` of the client certificate (chain) to present to an https sup-gateway, for a Supervisor started with --ca-certs (needs --sup-gateway-key)")
	fs.String("sup-gateway-key", "", "PEM `FILE` of the private key of --sup-gateway-certs")
	fs.String("sup-gateway", "", "also keep what the Supervisor's services run, asking its HTTP gateway at URL (the Supervisor's default: "+supervisor.DefaultURL+"; token from "+supervisor.TokenEnv+"; env HAB_GC_SUP_GATEWAY); if it does not answer, nothing is removed")
}

// isSymlink reports whether name is a symlink (not followed).
func isSymlink(name string) bool {
	fi, err := os.Lstat(name)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// warnZeroMinAge warns that a min_age of 0 (0, 0s, 0m...: the habit from
// before `none` existed) means the default hour, not "no minimum age".
func (c *config) warnZeroMinAge() {
	if !c.isSet("min_age") {
		return
	}
	raw := strings.TrimSpace(c.raw("min_age"))
	d, err := retention.ParseDuration(raw, retention.NoMinAge)
	if err != nil || d != 0 || strings.EqualFold(raw, "none") {
		return
	}
	c.warnings = append(c.warnings, fmt.Sprintf("min_age %q (from %s) means the default minimum age (%s), not none: releases installed less than %s ago are kept; say none (--min-age=none, HAB_GC_MIN_AGE=none, min_age = \"none\") to turn it off",
		raw, c.source("min_age"), retention.DefaultMinAge, retention.DefaultMinAge))
}

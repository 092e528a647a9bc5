package main

import (
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// pruneSetup is the policy and scan options of run and of a scheduled
// prune alike.
func (c *config) pruneSetup(requireKeep bool) (retention.Policy, pkgstore.Options, error) {
	pol, err := c.policy(requireKeep)
	if err != nil {
		return pol, pkgstore.Options{}, err
	}
	opts, err := c.scanOptions()
	return pol, opts, err
}

func errNoPolicy() error {
	return refusedError{errors.New(`no retention policy is set, so nothing will be removed.
Set how many releases of each package to keep, in one of these ways:
  hab-gc run --keep-latest=3
  HAB_GC_KEEP_LATEST=3 hab-gc run
  keep_latest = 3      (in FS_ROOT/hab/etc/hab-gc.toml, or the file given by --config)`)}
}

// policy builds the retention policy; requireKeep refuses one without
// keep_latest.
func (c *config) policy(requireKeep bool) (retention.Policy, error) {
	var p retention.Policy
	var err error
	if c.isSet("keep_latest") {
		if p.KeepLatest, err = c.count("keep_latest"); err != nil {
			return p, err
		}
	}
	// Unset (list without a policy) plans as KeepNone, its actions unshown.
	p.KeepLatest = retention.KeepCount(p.KeepLatest)
	if c.isSet("self_keep_latest") {
		n, err := c.count("self_keep_latest")
		if err != nil {
			return p, err
		}
		if p.SelfKeepLatest, err = retention.SelfKeepCount(n); err != nil {
			return p, c.bad("self_keep_latest", "must be 1 or more: Habitat's own packages always keep at least one release")
		}
	}
	if p.Excludes, err = c.pins(); err != nil {
		return p, err
	}
	for _, o := range c.list("only") {
		id, err := retention.ParseOnly(o)
		switch {
		case errors.Is(err, retention.ErrWildcard):
			return p, usageError{fmt.Errorf("invalid only (from %s): %v", c.source("only"), err)}
		case err != nil:
			return p, usageError{fmt.Errorf("invalid only %q (from %s): %v", o, c.source("only"), retention.ErrNotPackage)}
		}
		p.Only = append(p.Only, id)
	}
	if err := c.booleans(map[string]*bool{"services_only": &p.ServicesOnly, "no_deps": &p.NoDeps, "free_deps": &p.FreeDeps,
		"only_supervisor_installed": &p.OnlySupervisorInstalled, "ignore_uninstall_hooks": &p.IgnoreUninstallHooks, "allow_damaged": &p.AllowDamaged}); err != nil {
		return p, err
	}
	if p.KeepLatestFor, err = c.keepLatestFor(); err != nil {
		return p, err
	}
	if err := retention.CheckPackageCounts(p.KeepLatestFor); err != nil {
		return p, usageError{fmt.Errorf("%v (from %s)", err, c.source("keep_latest_for"))}
	}
	if c.isSet("min_age") {
		if p.MinAge, err = c.minAge(); err != nil {
			return p, err
		}
	}
	if err := c.roots(&p); err != nil {
		return p, err
	}
	if requireKeep && !c.isSet("keep_latest") {
		return p, errNoPolicy()
	}
	return p, nil
}

func (c *config) keepLatestFor() ([]retention.PackageCount, error) {
	var out []retention.PackageCount
	for _, it := range c.list("keep_latest_for") {
		pc, err := retention.ParsePackageCount(it)
		if err != nil {
			return nil, usageError{fmt.Errorf("invalid keep-latest-for (from %s): %v", c.source("keep_latest_for"), err)}
		}
		out = append(out, pc)
	}
	return out, nil
}

// pressureLimits are min_free and max_free, nil when neither is set.
func (c *config) pressureLimits() (*pressure.Limits, error) {
	setting := func(key string) *string {
		if !c.isSet(key) {
			return nil
		}
		v := c.raw(key)
		return &v
	}
	l, err := pressure.ParseLimits(setting("min_free"), setting("max_free"))
	var se *pressure.SettingError
	switch {
	case errors.Is(err, pressure.ErrMaxWithoutMin):
		return nil, c.bad("max_free", "needs min-free too: below min-free, hab-gc frees up to max-free")
	case errors.As(err, &se):
		return nil, c.bad(se.Setting, "must be a size such as 500MB, 2GiB or 10% of the file system")
	}
	return l, err
}

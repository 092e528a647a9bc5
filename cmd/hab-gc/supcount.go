package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/pelletier/go-toml/v2"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// supConfigFile is what hab sup run reads without --config-files
// (components/hab/src/cli_v4/sup/sup_run.rs, maybe_merge_from_config_files).
const supConfigFile = "hab/sup/default/config/sup.toml"

// supervisorCount gives watch sup.toml's keep_latest_packages when no
// setting names a count, read as the Supervisor reads it; a sup.toml it
// would refuse is refused.
func (c *config) supervisorCount() error {
	if c.isSet("keep_latest") {
		return nil
	}
	file := filepath.Join(c.fsRoot(), filepath.FromSlash(supConfigFile))
	data, err := safeio.ReadFile(file, safeio.Limit, safeio.FollowLinks)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return nil
	case errors.Is(err, safeio.ErrNotRegular):
		return refusedError{fmt.Errorf("the Supervisor's config file %s: %v", file, pathless(err))}
	case err != nil:
		return usageError{fmt.Errorf("the Supervisor's config file %s: %v", file, pathless(err))}
	}
	var sup struct {
		KeepLatestPackages *int64 `toml:"keep_latest_packages"`
	}
	if err := toml.Unmarshal(data, &sup); err != nil {
		return usageError{fmt.Errorf("the Supervisor's config file %s: keep_latest_packages: %v", file, err)}
	}
	if sup.KeepLatestPackages == nil {
		return nil
	}
	if *sup.KeepLatestPackages < 0 {
		return usageError{fmt.Errorf("the Supervisor's config file %s: keep_latest_packages = %d: must be 0 or more", file, *sup.KeepLatestPackages)}
	}
	c.v.Set("keep_latest", strconv.FormatInt(*sup.KeepLatestPackages, 10))
	c.supCount = fmt.Sprintf("config key %q in the Supervisor's %s", "keep_latest_packages", file)
	return nil
}

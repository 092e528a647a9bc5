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

// supConfigFile is the Supervisor's own configuration file under the FS
// root, which `hab sup run` reads when no --config-files are given
// (habitat-sh/habitat components/hab/src/cli_v4/sup/sup_run.rs,
// maybe_merge_from_config_files).
const supConfigFile = "hab/sup/default/config/sup.toml"

// supervisorCount gives watch the Supervisor's count when hab-gc's own
// settings (--keep-latest, HAB_KEEP_LATEST, HAB_KEEP_LATEST_PACKAGES,
// keep_latest in hab-gc.toml) name none: keep_latest_packages in
// FS_ROOT/hab/sup/default/config/sup.toml, read as the Supervisor reads
// it: after the flag and the environment, a whole number 0 or more, its
// value the number of releases kept, the one running among them (0: only
// the one running, as uninstall_all_but_latest(ident, 0) leaves it).
// A sup.toml that is there but cannot be read, or is not TOML, is
// refused: the Supervisor refuses it too; one that is not a regular file
// is refused for safety (exit 3).
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
		// A FIFO or device planted there: refused as an unsafe lock file is.
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

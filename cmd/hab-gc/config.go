package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/internal/suggest"
)

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

// isSymlink reports whether name is a symlink (not followed).
func isSymlink(name string) bool {
	fi, err := os.Lstat(name)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

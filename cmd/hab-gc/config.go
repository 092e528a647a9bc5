package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/internal/suggest"
)

// config holds a command's settings: viper resolves each from the flag,
// else its environment variable, else the config file, and source says
// which one it was.
type config struct {
	v      *viper.Viper
	cmd    *cobra.Command
	lookup func(string) (string, bool)
	file   string
	// fromFile is the config file's TOML as written: its exclude adds up
	// with the other sources' (see pins).
	fromFile map[string]any
	// given are settings a scheduled job's definition fixes over every
	// source (see jobSettings), by key, with where they come from.
	given map[string]string
	// warnings are about the settings themselves (a variable ignored),
	// for the command to print on stderr.
	warnings []string
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

// given is a setting fixed over every source (a job's parameter).
type given struct{ key, value, source string }

// loadConfig binds the command's flags and the environment, then reads the
// config file: --config, else FS_ROOT/hab/etc/hab-gc.toml when present.
func loadConfig(cmd *cobra.Command, lookup func(string) (string, bool), fixed ...given) (*config, error) {
	dec := &tomlFile{}
	c := &config{v: viper.NewWithOptions(viper.WithDecoderRegistry(dec)), cmd: cmd, lookup: lookup, supervisor: cmd.Name() == "watch", given: map[string]string{}}
	for _, s := range settings() {
		if f := cmd.Flags().Lookup(s.flag); f != nil {
			if err := c.v.BindPFlag(s.key, f); err != nil {
				return nil, err
			}
		}
		if err := c.v.BindEnv(append([]string{s.key}, c.vars(s)...)...); err != nil {
			return nil, err
		}
	}
	for _, g := range fixed {
		c.v.Set(g.key, g.value)
		c.given[g.key] = g.source
	}
	// Warned when it would have been read (no flag, no HAB_KEEP_LATEST).
	if !c.supervisor && supKeepNone() && !c.isSet("keep_latest") {
		c.warnings = append(c.warnings, supKeepLatestEnv+"=0 is ignored: it is the Supervisor's per-service setting (after a service starts, the Supervisor keeps that many releases of that service's package, the one it runs among them; 0: only the one it runs), which hab-gc watch follows, not a store-wide keep of none; to keep none by count say --keep-latest=0, HAB_GC_KEEP_LATEST=0 or keep_latest = 0")
	}
	if f := cmd.Flags().Lookup("config"); f != nil {
		if err := c.v.BindPFlag("config", f); err != nil {
			return nil, err
		}
	}
	if err := c.v.BindEnv("config", "HAB_GC_CONFIG"); err != nil {
		return nil, err
	}
	if err := c.readFile(dec); err != nil {
		return nil, err
	}
	c.warnUnknownEnv()
	c.warnIneffective()
	return c, nil
}

// readFile reads the config file into viper (see readConfigFile).
func (c *config) readFile(dec *tomlFile) error {
	if err := c.checkFSRoot(); err != nil {
		return err
	}
	file, data, err := readConfigFile(c.v.GetString("config"), c.fsRoot())
	if err != nil || file == "" {
		return err
	}
	c.v.SetConfigType("toml")
	if err := c.v.ReadConfig(bytes.NewReader(data)); err != nil {
		return usageError{configFileError(file, err)}
	}
	c.file, c.fromFile = file, dec.read
	for _, k := range c.v.AllKeys() {
		if c.v.InConfig(k) && !c.known(strings.SplitN(k, ".", 2)[0]) {
			return usageError{fmt.Errorf("config file %s: unknown key %q%s", file, k, didYouMean(k))}
		}
	}
	return c.checkFSRoot()
}

// readConfigFile reads the config file: file when named (--config,
// HAB_GC_CONFIG), else FS_ROOT/hab/etc/hab-gc.toml when present (file
// ""). It is read without blocking (a FIFO is refused, not waited on),
// regular files only, capped at safeio.Limit.
func readConfigFile(file, fsRoot string) (string, []byte, error) {
	named := file != ""
	if !named {
		file = filepath.Join(fsRoot, "hab", "etc", "hab-gc.toml")
	}
	b, err := safeio.ReadFile(file, safeio.Limit, safeio.FollowLinks)
	switch {
	case err == nil:
		return file, b, nil
	case named:
	case errors.Is(err, fs.ErrNotExist) && isSymlink(file):
		// Something is there, a symlink to what is not (yet): a volume
		// not mounted, a config not deployed. Its settings (pins)
		// would be silently dropped.
		target, _ := os.Readlink(file)
		return "", nil, usageError{fmt.Errorf("config file %s is a symlink to %s, which does not exist; refusing to run without it", file, target)}
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return "", nil, nil
	}
	return "", nil, usageError{fmt.Errorf("config file %s: %v", file, pathless(err))}
}

// tomlFile decodes the config file for viper. keep_latest_for's table
// becomes the list ORIGIN/NAME=N of its flag, its package names as
// written: viper lowers the case of keys.
type tomlFile struct{ read map[string]any }

func (d *tomlFile) Decoder(string) (viper.Decoder, error) { return d, nil }

func (d *tomlFile) Decode(b []byte, v map[string]any) error {
	if err := toml.Unmarshal(b, &d.read); err != nil {
		return err
	}
	for k, x := range d.read {
		v[k] = x
	}
	if t, ok := d.read["keep_latest_for"].(map[string]any); ok {
		var items []string
		for pkg, n := range t {
			items = append(items, fmt.Sprintf("%s=%v", pkg, n))
		}
		slices.Sort(items) // a table has no order; messages and plans are deterministic
		v["keep_latest_for"] = items
	}
	return nil
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

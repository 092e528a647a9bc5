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
// else its variable, else the config file; source says which.
type config struct {
	v        *viper.Viper
	cmd      *cobra.Command
	lookup   func(string) (string, bool)
	file     string
	fromFile map[string]any    // the file's TOML as written: its exclude adds up (pins)
	given    map[string]string // settings a job's definition fixes, by key: their source
	warnings []string
	// a job definition's excludes and their source
	jobPins      []string
	jobPinSource string
	// supervisor is set for watch, which reads keep_latest as the
	// Supervisor does; supCount is where, when from sup.toml.
	supervisor bool
	supCount   string
}

type given struct{ key, value, source string }

// loadConfig binds the command's flags and the environment, then reads the
// config file.
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

// readConfigFile reads file, else FS_ROOT/hab/etc/hab-gc.toml when
// present: a regular file only, never waiting on a FIFO.
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
		// A volume not mounted: its pins would be silently dropped.
		target, _ := os.Readlink(file)
		return "", nil, usageError{fmt.Errorf("config file %s is a symlink to %s, which does not exist; refusing to run without it", file, target)}
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return "", nil, nil
	}
	return "", nil, usageError{fmt.Errorf("config file %s: %v", file, pathless(err))}
}

// tomlFile decodes the config file for viper: keep_latest_for's table
// becomes its flag's list, package names as written (viper lowers keys).
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

// bareWord recognises KEY = WORD, WORD unquoted, where a decode error is.
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

func didYouMean(key string) string {
	var keys []string
	for _, s := range settings() {
		keys = append(keys, s.key)
	}
	return suggest.Hint(key, keys, 2)
}

// configFileError is FILE:LINE:COLUMN: message for bad TOML; a bare word
// (min_age = none) says how to quote it rather than go-toml's "nan".
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

func isSymlink(name string) bool {
	fi, err := os.Lstat(name)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

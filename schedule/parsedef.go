package schedule

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/hab-gc/hab-gc/pressure"
)

type fileFormat struct {
	Name    string       `toml:"name"`
	Created any          `toml:"created"`
	FSRoot  *string      `toml:"fs_root"`
	Check   *checkFormat `toml:"check"`
	Prune   *pruneFormat `toml:"prune"`
	// Pressure is a prune's keys without schedule, plus min_free and
	// max_free.
	Pressure *pressureFormat `toml:"pressure"`
	// Watch is the [watch] table (see WatchDef).
	Watch *watchFormat `toml:"watch"`
}

type pressureFormat struct {
	MinFree    *string  `toml:"min_free"`
	MaxFree    *string  `toml:"max_free"`
	KeepLatest *int     `toml:"keep_latest"`
	Exclude    []string `toml:"exclude"`
	MinAge     *string  `toml:"min_age"`
}

type checkFormat struct {
	Schedule string `toml:"schedule"`
}

type pruneFormat struct {
	Schedule   string   `toml:"schedule"`
	KeepLatest *int     `toml:"keep_latest"`
	Exclude    []string `toml:"exclude"`
	MinAge     *string  `toml:"min_age"`
}

// ParseDefinition parses one definition file's contents.
func ParseDefinition(file string, data []byte) (Definition, error) {
	// A UTF-8 byte order mark (an editor's) is not part of the TOML.
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	fail := func(field, format string, args ...any) error {
		line, col := keyPos(data, strings.SplitN(field, "/", 2)[0])
		return &DefinitionError{File: file, Line: line, Column: col, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	f, err := decodeDefinition(file, data)
	if err != nil {
		return Definition{}, err
	}
	d := Definition{Name: f.Name, File: file}
	if d.Name == "" {
		d.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if d.Created, d.HasCreated, err = parseCreated(fail, f.Created); err != nil {
		return Definition{}, err
	}
	if err := d.setStore(fail, f.FSRoot); err != nil {
		return Definition{}, err
	}
	if f.Check == nil && f.Prune == nil && f.Pressure == nil && f.Watch == nil {
		return Definition{}, fail("check/prune", "no job: add a [check], [prune], [pressure] or [watch] table")
	}
	if f.Watch != nil {
		if d.Watch, err = parseWatch(fail, f.Watch); err != nil {
			return Definition{}, err
		}
	}
	if f.Pressure != nil {
		if d.Pressure, err = parsePressure(fail, f.Pressure); err != nil {
			return Definition{}, err
		}
	}
	if f.Check != nil {
		spec, err := ParseSpec(f.Check.Schedule)
		if err != nil {
			return Definition{}, fail("check.schedule", "%v", err)
		}
		d.Jobs = append(d.Jobs, JobDef{Type: Check, Spec: spec})
	}
	if f.Prune != nil {
		spec, err := ParseSpec(f.Prune.Schedule)
		if err != nil {
			return Definition{}, fail("prune.schedule", "%v", err)
		}
		p, err := pruneParams(fail, "prune", f.Prune.KeepLatest, f.Prune.Exclude, f.Prune.MinAge)
		if err != nil {
			return Definition{}, err
		}
		d.Jobs = append(d.Jobs, JobDef{Type: Prune, Spec: spec, Params: p})
	}
	return d, nil
}

// decodeDefinition decodes a definition file's TOML, refusing unknown
// fields (with a suggestion) and naming where a value is wrong.
func decodeDefinition(file string, data []byte) (fileFormat, error) {
	var f fileFormat
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&f)
	if err == nil {
		return f, nil
	}
	var sme *toml.StrictMissingError
	if errors.As(err, &sme) {
		e := &DefinitionError{File: file, Msg: "unknown field"}
		if len(sme.Errors) > 0 {
			e.Line, e.Column = sme.Errors[0].Position()
			e.Msg = "unknown field " + strings.Join(sme.Errors[0].Key(), ".") + suggestKey(sme.Errors[0].Key())
		}
		return fileFormat{}, e
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fileFormat{}, &DefinitionError{File: file, Line: row, Column: col, Field: strings.Join(de.Key(), "."), Msg: de.Error()}
	}
	return fileFormat{}, &DefinitionError{File: file, Msg: err.Error()}
}

// parseCreated reads the created key: a TOML offset datetime or an RFC
// 3339 string (ok false when the file has none).
func parseCreated(fail func(field, format string, args ...any) error, created any) (t time.Time, ok bool, err error) {
	switch c := created.(type) {
	case nil:
		return time.Time{}, false, nil
	case time.Time: // a TOML offset datetime
		return c, true, nil
	case string:
		t, err := time.Parse(time.RFC3339, c)
		if err != nil {
			return time.Time{}, false, fail("created", "%q is not an RFC 3339 time", c)
		}
		return t, true, nil
	case toml.LocalDateTime, toml.LocalDate, toml.LocalTime:
		return time.Time{}, false, fail("created", "%v has no zone offset: write one, e.g. 2026-01-02T00:00:00Z", c)
	default:
		return time.Time{}, false, fail("created", "%v is not an RFC 3339 time", c)
	}
}

// setStore reads fs_root into d: it must be absolute and its store
// exist; d.Store and d.Root are their canonical paths.
func (d *Definition) setStore(fail func(field, format string, args ...any) error, fsRoot *string) error {
	if fsRoot == nil || *fsRoot == "" {
		return fail("fs_root", "missing: name the FS root of the store (\"/\" for /hab/pkgs)")
	}
	d.FSRoot = *fsRoot
	if !filepath.IsAbs(d.FSRoot) {
		return fail("fs_root", "%q is relative: write an absolute path (it would depend on the working directory)", d.FSRoot)
	}
	// The store must exist: its canonical path (which symlinks it goes
	// through) is part of the job's key, and would change when it appears.
	if _, err := os.Stat(filepath.Join(d.FSRoot, "hab", "pkgs")); err != nil {
		e := fail("fs_root", "the store %s does not exist (yet?): its jobs do not run, and their state is kept until it does (%v)",
			filepath.Join(d.FSRoot, "hab", "pkgs"), err)
		e.(*DefinitionError).MissingStore = filepath.Join(d.FSRoot, "hab", "pkgs")
		return e
	}
	store, err := CanonicalStore(d.FSRoot)
	if err != nil {
		return fail("fs_root", "%v", err)
	}
	d.Store = store
	if d.Root, err = canonicalPath(d.FSRoot); err != nil {
		return fail("fs_root", "%v", err)
	}
	return nil
}

// parsePressure reads the [pressure] table: min_free (required), max_free
// (default min_free, never below it: refused here when both are bytes,
// as pressure.Limits.Check says; a percentage is resolved when the job
// runs) and a prune's keys.
func parsePressure(fail func(field, format string, args ...any) error, pf *pressureFormat) (*PressureDef, error) {
	if pf.MinFree == nil {
		return nil, fail("pressure.min_free", "missing: the free space below which to prune (2GiB, 500MB, 10%%)")
	}
	l, err := pressure.ParseLimits(pf.MinFree, pf.MaxFree)
	var se *pressure.SettingError
	switch {
	case errors.As(err, &se):
		return nil, fail("pressure."+se.Setting, "%v", se.Err)
	case err != nil:
		return nil, fail("pressure", "%v", err)
	}
	switch err := l.Check(); {
	case errors.Is(err, pressure.ErrMaxBelowMin):
		return nil, fail("pressure.max_free", "%s is less than min_free %s", l.MaxFree, l.MinFree)
	case err != nil:
		return nil, fail("pressure", "%v", err)
	}
	p, err := pruneParams(fail, "pressure", pf.KeepLatest, pf.Exclude, pf.MinAge)
	if err != nil {
		return nil, err
	}
	return &PressureDef{Params: p, Limits: *l}, nil
}

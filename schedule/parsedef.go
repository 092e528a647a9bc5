package schedule

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/internal/suggest"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/pelletier/go-toml/v2"
)

type fileFormat struct {
	Name     string          `toml:"name"`
	Created  any             `toml:"created"`
	FSRoot   *string         `toml:"fs_root"`
	Check    *checkFormat    `toml:"check"`
	Prune    *pruneFormat    `toml:"prune"`
	Pressure *pressureFormat `toml:"pressure"`
	Watch    *watchFormat    `toml:"watch"`
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
	if d.Created, err = parseCreated(fail, f.Created); err != nil {
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

func parseCreated(fail func(field, format string, args ...any) error, created any) (time.Time, error) {
	switch c := created.(type) {
	case nil:
		return time.Time{}, nil
	case time.Time: // a TOML offset datetime
		return c, nil
	case string:
		t, err := time.Parse(time.RFC3339, c)
		if err != nil {
			return time.Time{}, fail("created", "%q is not an RFC 3339 time", c)
		}
		return t, nil
	case toml.LocalDateTime, toml.LocalDate, toml.LocalTime:
		return time.Time{}, fail("created", "%v has no zone offset: write one, e.g. 2026-01-02T00:00:00Z", c)
	default:
		return time.Time{}, fail("created", "%v is not an RFC 3339 time", c)
	}
}

func (d *Definition) setStore(fail func(field, format string, args ...any) error, fsRoot *string) error {
	if fsRoot == nil || *fsRoot == "" {
		return fail("fs_root", "missing: name the FS root of the store (\"/\" for /hab/pkgs)")
	}
	d.FSRoot = *fsRoot
	if !filepath.IsAbs(d.FSRoot) {
		return fail("fs_root", "%q is relative: write an absolute path (it would depend on the working directory)", d.FSRoot)
	}
	// The store's canonical path is part of the job's key.
	if _, err := os.Stat(filepath.Join(d.FSRoot, "hab", "pkgs")); err != nil {
		e := fail("fs_root", "the store %s does not exist (yet?): its jobs do not run, and their state is kept until it does (%v)",
			filepath.Join(d.FSRoot, "hab", "pkgs"), err)
		e.(*DefinitionError).missingStore = filepath.Join(d.FSRoot, "hab", "pkgs")
		return e
	}
	store, err := canonicalStore(d.FSRoot)
	if err != nil {
		return fail("fs_root", "%v", err)
	}
	d.Store = store
	if d.root, err = canonicalPath(d.FSRoot); err != nil {
		return fail("fs_root", "%v", err)
	}
	return nil
}

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

// loadDir reads every *.toml file in dir; a bad file does not stop the
// others.
func loadDir(dir string) ([]Definition, []error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil {
		return nil, []error{err}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = fmt.Errorf("%s is not a directory", dir)
		}
		return nil, []error{fmt.Errorf("%w: %w: %v", ErrDefinition, errNoDir, err)}
	}
	slices.Sort(files)
	var defs []Definition
	var errs []error
	names := map[string]string{}
	for _, f := range files {
		data, err := safeio.ReadFile(f, safeio.Limit, safeio.FollowLinks)
		if err != nil {
			errs = append(errs, &DefinitionError{File: f, Msg: err.Error()})
			continue
		}
		d, err := ParseDefinition(f, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if other, dup := names[d.Name]; dup {
			line, col := keyPos(data, "name")
			errs = append(errs, &DefinitionError{File: f, Line: line, Column: col, Field: "name", Msg: fmt.Sprintf("%q is already used by %s", d.Name, other)})
			continue
		}
		names[d.Name] = f
		defs = append(defs, d)
	}
	return defs, errs
}

// DefinitionError is a rejected definition file: where (1-based line and
// column; 0 when unknown), which field, and why.
type DefinitionError struct {
	File         string
	Line, Column int
	Field        string
	Msg          string
	missingStore string // it loads once this exists (a late mount)
}

func (e *DefinitionError) Error() string {
	where := e.File
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Column)
	}
	if e.Field != "" {
		return fmt.Sprintf("%v: %s: field %s: %s", ErrDefinition, where, e.Field, e.Msg)
	}
	return fmt.Sprintf("%v: %s: %s", ErrDefinition, where, e.Msg)
}

func (e *DefinitionError) Unwrap() error { return ErrDefinition }

// keyPos finds where a dotted field is written: its key, else its
// table's header, else 1:1.
func keyPos(data []byte, field string) (line, col int) {
	table, key, ok := strings.Cut(field, ".")
	if !ok {
		table, key = "", field
	}
	cur := ""
	hdrLine, hdrCol := 0, 0
	for i, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		indent := len(l) - len(strings.TrimLeft(l, " \t")) + 1
		if strings.HasPrefix(t, "[") {
			cur = strings.TrimSpace(strings.Trim(t, "[] \t"))
			if cur == table && hdrLine == 0 {
				hdrLine, hdrCol = i+1, indent
			}
			continue
		}
		if cur != table {
			continue
		}
		if k, _, ok := strings.Cut(t, "="); ok && strings.Trim(strings.TrimSpace(k), `"'`) == key {
			return i + 1, indent
		}
	}
	if hdrLine > 0 {
		return hdrLine, hdrCol
	}
	return 1, 1
}

// suggestKey returns " (did you mean K?)" for a known key of the table
// within two edits of a misspelt key, else "".
func suggestKey(key []string) string {
	if len(key) == 0 {
		return ""
	}
	t := reflect.TypeOf(fileFormat{})
	for _, part := range key[:len(key)-1] {
		f, ok := tomlField(t, part)
		if !ok {
			return ""
		}
		t = f.Type
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return ""
		}
	}
	names := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		names = append(names, name)
	}
	return suggest.Hint(key[len(key)-1], names, 2)
}

func tomlField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); n == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

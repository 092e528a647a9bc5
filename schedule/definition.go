package schedule

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// JobType is the kind of job a schedule asks for.
type JobType string

const (
	Check JobType = "check"
	Prune JobType = "prune"
	// Pressure is a prune that runs when free space on the store's file
	// system falls below a definition's [pressure] min_free.
	Pressure JobType = "pressure"
)

// ErrDefinition is wrapped by errors about definition files.
var ErrDefinition = errors.New("invalid schedule definition")

// ErrNoDir is wrapped by the problem of a schedules directory that is
// missing or unreadable (being replaced): Reload then keeps everything.
var ErrNoDir = errors.New("schedules directory unreadable")

// DefinitionError is a rejected definition file: where (1-based line and
// column; 0 when unknown), which field, and why.
type DefinitionError struct {
	File         string
	Line, Column int
	Field        string
	Msg          string
	// MissingStore is the store (FS_ROOT/hab/pkgs) whose absence
	// rejected the file: it loads once the store exists (a late mount).
	MissingStore string
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

// keyPos finds where a dotted field ("prune.keep_latest", "fs_root") is
// written in a TOML file: its key's line and column, else its table's
// header, else 1:1. Definitions are flat (one level of tables), which is
// all this needs to handle.
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

// Params are a prune job's parameters. They are part of what makes two
// schedules the same job. They mean what retention.Policy's fields do:
// the zero value is refused.
type Params struct {
	// KeepLatest is 1 or more, or retention.KeepNone to keep no release
	// by count (keep_latest = 0 in a file). 0 is unset, and refused
	// (retention.ErrEmptyPolicy).
	KeepLatest int
	Exclude    []string
	// MinAge is 0 for the default (hab-gc's min_age setting, else
	// retention.DefaultMinAge), retention.NoMinAge for none.
	MinAge time.Duration
}

// Validate checks the parameters as the policy they make
// (retention.Policy.Validate): KeepLatest 0 is refused, MinAge below zero
// other than retention.NoMinAge too.
func (p Params) Validate() error {
	_, err := p.Policy()
	return err
}

// Count is KeepLatest as a file or flag writes it: 0 for KeepNone.
func (p Params) Count() int { return max(p.KeepLatest, 0) }

// normaliseExcludes trims each exclude, sorts them and drops repeats, so
// that lists that differ only in that way are one job.
func normaliseExcludes(ex []string) []string {
	out := make([]string, 0, len(ex))
	for _, e := range ex {
		out = append(out, strings.TrimSpace(e))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Canonical encodes the parameters deterministically (excludes trimmed,
// sorted, without repeats).
//
// The encoding is the one job keys have always hashed (keep_latest as a
// file writes it; has_min_age for a min age that is set), so that a
// schedule keeps its key and its state.
func (p Params) Canonical() string {
	b, _ := json.Marshal(struct {
		KeepLatest int           `json:"keep_latest"`
		Exclude    []string      `json:"exclude"`
		MinAge     time.Duration `json:"min_age"`
		HasMinAge  bool          `json:"has_min_age"`
	}{p.Count(), normaliseExcludes(p.Exclude), p.MinAge, p.MinAge != 0})
	return string(b)
}

// Policy returns the retention policy of a prune job.
func (p Params) Policy() (retention.Policy, error) {
	pol := retention.Policy{KeepLatest: p.KeepLatest, MinAge: p.MinAge}
	for _, e := range p.Exclude {
		ex, err := retention.ParseExclude(e)
		if err != nil {
			return pol, err
		}
		pol.Excludes = append(pol.Excludes, ex)
	}
	return pol, pol.Validate()
}

// JobDef is one job a definition asks for.
type JobDef struct {
	Type   JobType
	Spec   Spec
	Params Params // prune only
}

// Definition is one schedule file.
type Definition struct {
	// Name defaults to the file stem.
	Name string
	// File is the definition's path.
	File string
	// Created orders schedules for ownership; HasCreated is false when the
	// file does not say (the scheduler then uses when it first saw it).
	Created    time.Time
	HasCreated bool
	// FSRoot is the store's FS root as written; Root the canonical FS
	// root (absolute, symlinks resolved as far as it exists); Store the
	// canonical store path (the same, of FSROOT/hab/pkgs).
	FSRoot, Root, Store string
	Jobs                []JobDef
	// Pressure is the [pressure] table: prune when free space on the
	// store's file system falls below MinFree (nil: none).
	Pressure *PressureDef
	// Watch is the [watch] table: the daemon watches the store and purges
	// after installs (nil: none).
	Watch *WatchDef
}

// PressureDef is a definition's [pressure] table: when the store's file
// system has less than MinFree free, prune with Params until MaxFree is
// free (see package pressure).
type PressureDef struct {
	Params Params
	Limits pressure.Limits
}

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

// CanonicalStore returns the canonical package store path of an FS root:
// absolute, cleaned, symlinks resolved (as far as the path exists), so
// that /hab/pkgs, /hab/../hab/pkgs/ and a symlink to it are one store.
func CanonicalStore(fsRoot string) (string, error) {
	return canonicalPath(filepath.Join(fsRoot, "hab", "pkgs"))
}

// canonicalPath makes p absolute and clean and resolves the symlinks of
// its longest existing prefix; the rest is kept as written.
func canonicalPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	// Resolve the longest existing prefix, keep the rest as written.
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), nil
		}
		if p == filepath.Dir(p) {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// ParseDefinition parses one definition file's contents.
func ParseDefinition(file string, data []byte) (Definition, error) {
	// A UTF-8 byte order mark (an editor's) is not part of the TOML.
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	fail := func(field, format string, args ...any) error {
		line, col := keyPos(data, strings.SplitN(field, "/", 2)[0])
		return &DefinitionError{File: file, Line: line, Column: col, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	var f fileFormat
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var sme *toml.StrictMissingError
		if errors.As(err, &sme) {
			e := &DefinitionError{File: file, Msg: "unknown field"}
			if len(sme.Errors) > 0 {
				e.Line, e.Column = sme.Errors[0].Position()
				e.Msg = "unknown field " + strings.Join(sme.Errors[0].Key(), ".") + suggestKey(sme.Errors[0].Key())
			}
			return Definition{}, e
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return Definition{}, &DefinitionError{File: file, Line: row, Column: col, Field: strings.Join(de.Key(), "."), Msg: de.Error()}
		}
		return Definition{}, &DefinitionError{File: file, Msg: err.Error()}
	}
	d := Definition{Name: f.Name, File: file}
	if d.Name == "" {
		d.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	switch c := f.Created.(type) {
	case nil:
	case time.Time: // a TOML offset datetime
		d.Created, d.HasCreated = c, true
	case string:
		t, err := time.Parse(time.RFC3339, c)
		if err != nil {
			return Definition{}, fail("created", "%q is not an RFC 3339 time", c)
		}
		d.Created, d.HasCreated = t, true
	case toml.LocalDateTime, toml.LocalDate, toml.LocalTime:
		return Definition{}, fail("created", "%v has no zone offset: write one, e.g. 2026-01-02T00:00:00Z", c)
	default:
		return Definition{}, fail("created", "%v is not an RFC 3339 time", c)
	}
	if f.FSRoot == nil || *f.FSRoot == "" {
		return Definition{}, fail("fs_root", "missing: name the FS root of the store (\"/\" for /hab/pkgs)")
	}
	d.FSRoot = *f.FSRoot
	if !filepath.IsAbs(d.FSRoot) {
		return Definition{}, fail("fs_root", "%q is relative: write an absolute path (it would depend on the working directory)", d.FSRoot)
	}
	// The store must exist: its canonical path (which symlinks it goes
	// through) is part of the job's key, and would change when it appears.
	if _, err := os.Stat(filepath.Join(d.FSRoot, "hab", "pkgs")); err != nil {
		e := fail("fs_root", "the store %s does not exist (yet?): its jobs do not run, and their state is kept until it does (%v)",
			filepath.Join(d.FSRoot, "hab", "pkgs"), err)
		e.(*DefinitionError).MissingStore = filepath.Join(d.FSRoot, "hab", "pkgs")
		return Definition{}, e
	}
	store, err := CanonicalStore(d.FSRoot)
	if err != nil {
		return Definition{}, fail("fs_root", "%v", err)
	}
	d.Store = store
	if d.Root, err = canonicalPath(d.FSRoot); err != nil {
		return Definition{}, fail("fs_root", "%v", err)
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
		pf := f.Pressure
		if pf.MinFree == nil {
			return Definition{}, fail("pressure.min_free", "missing: the free space below which to prune (2GiB, 500MB, 10%%)")
		}
		var l pressure.Limits
		var err error
		if l.MinFree, err = pressure.ParseSize(*pf.MinFree); err != nil {
			return Definition{}, fail("pressure.min_free", "%v", err)
		}
		l.MaxFree = l.MinFree
		if pf.MaxFree != nil {
			if l.MaxFree, err = pressure.ParseSize(*pf.MaxFree); err != nil {
				return Definition{}, fail("pressure.max_free", "%v", err)
			}
		}
		if l.MinFree.Percent == 0 && l.MaxFree.Percent == 0 && l.MaxFree.Bytes < l.MinFree.Bytes {
			return Definition{}, fail("pressure.max_free", "%s is less than min_free %s", l.MaxFree, l.MinFree)
		}
		p, err := pruneParams(fail, "pressure", pf.KeepLatest, pf.Exclude, pf.MinAge)
		if err != nil {
			return Definition{}, err
		}
		d.Pressure = &PressureDef{Params: p, Limits: l}
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

// pruneParams reads a prune's keys (of the [prune] or [pressure] table).
func pruneParams(fail func(field, format string, args ...any) error, table string, keep *int, exclude []string, minAge *string) (Params, error) {
	if keep == nil {
		return Params{}, fail(table+".keep_latest", "missing: a prune job needs a policy")
	}
	if *keep < 0 {
		return Params{}, fail(table+".keep_latest", "%d is negative", *keep)
	}
	p := Params{KeepLatest: retention.KeepCount(*keep), Exclude: normaliseExcludes(exclude)}
	if minAge != nil {
		dur, err := retention.ParseDuration(*minAge, retention.NoMinAge)
		if err != nil {
			return Params{}, fail(table+".min_age", "%v", err)
		}
		p.MinAge = dur
	}
	if _, err := p.Policy(); err != nil {
		return Params{}, fail(table+".exclude", "%v", err)
	}
	return p, nil
}

// LoadDir reads every *.toml file in dir. A bad file yields an error that
// names the file and the field; the other files still load.
func LoadDir(dir string) ([]Definition, []error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil {
		return nil, []error{err}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = fmt.Errorf("%s is not a directory", dir)
		}
		return nil, []error{fmt.Errorf("%w: %w: %v", ErrDefinition, ErrNoDir, err)}
	}
	slices.Sort(files)
	var defs []Definition
	var errs []error
	names := map[string]string{}
	for _, f := range files {
		// Without blocking on a FIFO, regular files only, capped.
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

func shortHash(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:8])
}

package schedule

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// NewDefinition makes a definition in code, as a Supervisor makes one
// from its own service definitions: what a definition file would say,
// checked as a file is (ParseDefinition), with its store canonicalised
// (Root and Store from fsRoot). created may be zero: the scheduler then
// uses when it first saw the definition. Errors wrap ErrDefinition.
func NewDefinition(name, fsRoot string, created time.Time, jobs ...JobDef) (Definition, error) {
	bad := func(format string, args ...any) (Definition, error) {
		return Definition{}, fmt.Errorf("%w: schedule %q: %s", ErrDefinition, name, fmt.Sprintf(format, args...))
	}
	if name == "" {
		return bad("no name")
	}
	if fsRoot == "" || !filepath.IsAbs(fsRoot) {
		return bad("fs_root %q must be an absolute path", fsRoot)
	}
	if _, err := os.Stat(filepath.Join(fsRoot, "hab", "pkgs")); err != nil {
		return bad("the store %s does not exist: %v", filepath.Join(fsRoot, "hab", "pkgs"), err)
	}
	if len(jobs) == 0 {
		return bad("no job")
	}
	d := Definition{Name: name, FSRoot: fsRoot, Created: created, HasCreated: !created.IsZero(), Jobs: slices.Clone(jobs)}
	var err error
	if d.Store, err = CanonicalStore(fsRoot); err != nil {
		return bad("%v", err)
	}
	if d.Root, err = canonicalPath(fsRoot); err != nil {
		return bad("%v", err)
	}
	for i, j := range d.Jobs {
		if j.Spec.Raw == "" {
			return bad("%s job without a schedule", j.Type)
		}
		switch j.Type {
		case Check:
			d.Jobs[i].Params = Params{}
		case Prune:
			d.Jobs[i].Params.Exclude = normaliseExcludes(j.Params.Exclude)
			if _, err := j.Params.Policy(); err != nil {
				return Definition{}, fmt.Errorf("%w: schedule %q: prune: %w", ErrDefinition, name, err)
			}
		default:
			return bad("unknown job type %q", j.Type)
		}
	}
	return d, nil
}

// Register adds definitions made in code (NewDefinition) to those Reload
// reads from Dir (Dir may be empty: then only these). They are merged
// with each other and with the files' exactly as files are: identical
// randomized schedules of one store share one job. A registered name
// replaces the definition registered under it before; a name a file in
// Dir also uses is rejected by Reload. Register takes effect at the next
// Reload.
func (s *Scheduler) Register(defs ...Definition) error {
	for _, d := range defs {
		if d.Name == "" || d.Store == "" {
			return fmt.Errorf("%w: register definitions made by NewDefinition", ErrDefinition)
		}
	}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.registered == nil {
		s.registered = map[string]Definition{}
	}
	for _, d := range defs {
		s.registered[d.Name] = d
	}
	return nil
}

// definitions returns the definitions of Dir (when set) and the
// registered ones, with the problems of both.
func (s *Scheduler) definitions() ([]Definition, []error) {
	var defs []Definition
	var errs []error
	if s.Dir != "" {
		defs, errs = LoadDir(s.Dir)
	}
	fromFiles := map[string]bool{}
	for _, d := range defs {
		fromFiles[d.Name] = true
	}
	s.rmu.Lock()
	var names []string
	for n := range s.registered {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if fromFiles[n] {
			errs = append(errs, fmt.Errorf("%w: schedule %q is registered in code and defined in %s: the registered one is ignored", ErrDefinition, n, s.Dir))
			continue
		}
		defs = append(defs, s.registered[n])
	}
	s.rmu.Unlock()
	return defs, errs
}

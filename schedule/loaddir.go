package schedule

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

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

package pkgstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// SpecsDir is where the Supervisor keeps service specs, under the FS root.
const SpecsDir = "hab/sup/default/specs"

// ParseServiceSpec parses a spec as the Supervisor does; it returns the
// ident and desired state ("up" or "down").
func ParseServiceSpec(name string, data []byte) (Ident, string, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return Ident{}, "", fmt.Errorf("TOML error at line %d, column %d: %s", row, col, de.Error())
		}
		return Ident{}, "", fmt.Errorf("TOML error: %v", err)
	}
	ident, ds, err := specFields(doc)
	if err != nil {
		return Ident{}, "", err
	}
	if ident == "" {
		return Ident{}, "", errors.New(`no "ident" field`)
	}
	id, err := ParseIdent(ident)
	if err != nil {
		return Ident{}, "", fmt.Errorf(`field "ident": %w`, err)
	}
	return id, ds, nil
}

// readSpecs reads and resolves every *.spec file; one that cannot be
// parsed is blocking.
func (s *Store) readSpecs(inv *Inventory, probs *problems) {
	dir := filepath.Join(s.fsRoot, SpecsDir)
	root, err := os.OpenRoot(safeio.Dir(dir))
	if errors.Is(err, fs.ErrNotExist) {
		if link, target, ok := dangling(s.fsRoot, SpecsDir); ok {
			probs.add(Problem{Path: SpecsDir, Kind: ProblemUnreadable, Blocking: true,
				Message: fmt.Sprintf("%s is a symlink to %s, which does not exist (a volume not mounted?), so which services are loaded is unknown", quoteName(link), quoteName(target))})
		}
		return
	}
	if err != nil {
		probs.add(Problem{Path: SpecsDir, Kind: ProblemUnreadable, Blocking: true,
			Message: fmt.Sprintf("cannot open the specs directory, so which services are loaded is unknown: %s", errMsg(err))})
		return
	}
	defer root.Close()
	entries, err := readDir(root, ".")
	if err != nil {
		probs.add(Problem{Path: SpecsDir, Kind: ProblemUnreadable, Blocking: true,
			Message: fmt.Sprintf("cannot list the specs directory, so which services are loaded is unknown: %s", errMsg(err))})
		return
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".spec") {
			continue
		}
		path := SpecsDir + "/" + quoteName(e.Name())
		stem := strings.TrimSuffix(e.Name(), ".spec")
		if !e.Type().IsRegular() {
			if specNotAFile(dir, e) {
				continue // the Supervisor loads nothing from it
			}
			probs.add(Problem{Path: path, Kind: ProblemSpec, Blocking: true,
				Message: fmt.Sprintf("spec is a %s, not a regular file; not followed, so what it loads is unknown", fileKind(e.Type()))})
			continue
		}
		data, err := safeio.ReadFileAt(root, e.Name(), safeio.Limit, safeio.NoFollow)
		if err != nil {
			msg := fmt.Sprintf("unreadable, so what it loads is unknown: %s", errMsg(err))
			if tl := tooLarge(err); tl != "" {
				msg = tl + ", so what it loads is unknown"
			}
			probs.add(Problem{Path: path, Kind: ProblemSpec, Blocking: true, Message: msg})
			continue
		}
		id, state, err := ParseServiceSpec(stem, data)
		if err != nil {
			probs.add(Problem{Path: path, Kind: ProblemSpec, Blocking: true,
				Message: fmt.Sprintf("cannot be parsed, so what it loads is unknown: %v", err)})
			continue
		}
		if id.Name != stem {
			probs.add(Problem{Path: path, Kind: ProblemSpecName,
				Message: fmt.Sprintf("file is named %q but its ident %s names %q; the Supervisor rejects it, hab-gc protects it anyway", stem, id, id.Name)})
		}
		svc := inv.resolveService(Service{Name: stem, SpecPath: path, Ident: id, DesiredState: state})
		inv.readPIDFile(&svc, probs)
		inv.Services = append(inv.Services, svc)
	}
}

func (inv *Inventory) resolveService(svc Service) Service {
	cands := inv.Satisfying(svc.Ident)
	ids := make([]Ident, len(cands))
	for i, c := range cands {
		ids[i] = c.Ident
	}
	picks := supervisorPicks(ids)
	if n := len(picks); n > 0 {
		svc.Resolved, svc.Installed = ids[picks[n-1]], true
		for _, i := range picks[:n-1] {
			svc.Ambiguous = append(svc.Ambiguous, ids[i])
		}
	}
	return svc
}

// MayRun reports whether the Supervisor may run id for svc were id
// installed beside what is installed now.
func (inv *Inventory) MayRun(svc Service, id Ident) bool {
	if !id.Satisfies(svc.Ident) {
		return false
	}
	ids := []Ident{id}
	for _, r := range inv.Satisfying(svc.Ident) {
		if r.Ident != id {
			ids = append(ids, r.Ident)
		}
	}
	picks := supervisorPicks(ids)
	return len(picks) > 0 && picks[0] == 0
}

// specNotAFile reports whether a spec entry that is not a regular file is
// certainly none for the Supervisor either, whose spec_files
// (spec_dir.rs) keeps what Path::is_file says, through symlinks.
func specNotAFile(dir string, e fs.DirEntry) bool {
	if e.Type()&fs.ModeSymlink == 0 {
		return true
	}
	fi, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && !fi.Mode().IsRegular()
}

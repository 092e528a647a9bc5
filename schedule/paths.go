package schedule

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// canonicalStore returns the canonical package store path of an FS root:
// absolute, cleaned, symlinks resolved (as far as the path exists), so
// that /hab/pkgs, /hab/../hab/pkgs/ and a symlink to it are one store.
func canonicalStore(fsRoot string) (string, error) {
	if err := pkgstore.RequireFSRoot(fsRoot); err != nil {
		return "", err
	}
	return canonicalPath(filepath.Join(fsRoot, "hab", "pkgs"))
}

// canonicalPath makes p absolute and clean and resolves the symlinks of
// its longest existing prefix; the rest is kept as written.
func canonicalPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	// resolveSpec the longest existing prefix, keep the rest as written.
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

// MachineIDEnv is the environment variable that names a machine's
// identity for randomized times, replacing FS_ROOT/etc/machine-id, the
// host name and the identity a state file recorded.
const MachineIDEnv = "HAB_GC_MACHINE_ID"

// MachineID is a machine's identity for randomized times (hashInput's
// Machine): explicit (the value of MachineIDEnv) when it is not blank,
// else the content of fsRoot/etc/machine-id (read without blocking, at
// most 4 KiB), else the host name. With none of them it fails, saying to
// set MachineIDEnv.
func machineID(fsRoot, explicit string) (string, error) {
	if v := strings.TrimSpace(explicit); v != "" {
		return v, nil
	}
	b, err := safeio.ReadFile(filepath.Join(fsRoot, "etc", "machine-id"), 4096, safeio.FollowLinks)
	if id := strings.TrimSpace(string(b)); err == nil && id != "" {
		return id, nil
	}
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "", fmt.Errorf("no machine identity: %s/etc/machine-id is unreadable and the host name unknown: set %s", fsRoot, MachineIDEnv)
	}
	return h, nil
}

// stateMachineID is the identity the times of the jobs of the FS root
// fsRoot were drawn with by a daemon whose state file is statePath:
// explicit when not blank (it replaces the recorded one), else the
// identity that state recorded for fsRoot, else machineID(fsRoot, ""). A
// state file that cannot be read counts as none.
func stateMachineID(fsRoot, explicit, statePath string) (string, error) {
	machine, err := machineID(fsRoot, explicit)
	if err != nil || strings.TrimSpace(explicit) != "" {
		return machine, err
	}
	if st, _, err := readStateFile(statePath); err == nil && st.Machines[rootOf(fsRoot)] != "" {
		machine = st.Machines[rootOf(fsRoot)]
	}
	return machine, nil
}

// DefaultStatePath is the daemon's state file when none is named: below
// the FS root fsRoot, beside the Supervisor's own files.
func DefaultStatePath(fsRoot string) (string, error) {
	if err := pkgstore.RequireFSRoot(fsRoot); err != nil {
		return "", fmt.Errorf("schedule state: %w", err)
	}
	return statePathAt(fsRoot), nil
}

// statePathAt is DefaultStatePath of an FS root already known not empty.
func statePathAt(fsRoot string) string {
	return filepath.Join(fsRoot, "hab", "sup", "default", "hab-gc", "schedule-state.json")
}

// storeFSRoot is the FS root of a store named by its FS root or by its
// hab/pkgs directory (as `schedule next --store` takes either).
func storeFSRoot(store string) string {
	clean := filepath.Clean(store)
	if hab := filepath.Dir(clean); filepath.Base(clean) == "pkgs" && filepath.Base(hab) == "hab" {
		return filepath.Dir(hab)
	}
	return store
}

// storeIDs returns (and records in st.StoreIDs) the identities of the
// stores moved behind a symlink: a store path a job recorded that now
// resolves elsewhere (hab/pkgs moved and linked back) keeps that path as
// the identity of the store it leads to, unless that store has jobs of its
// own in the state (then it is another store, not a move).
func storeIDs(st *stateFile) map[string]string {
	ids := st.StoreIDs
	own := map[string]bool{}
	for _, js := range st.Jobs {
		own[js.Store] = true
	}
	resolved := map[string]string{}
	for _, js := range st.Jobs {
		if js.Store == "" {
			continue
		}
		now, ok := resolved[js.Store]
		if !ok {
			now, _ = canonicalPath(js.Store)
			resolved[js.Store] = now
		}
		if now == "" || now == js.Store || own[now] {
			continue
		}
		if _, ok := ids[now]; ok {
			continue
		}
		id := js.Store
		if v, ok := ids[js.Store]; ok {
			id = v
		}
		ids[now] = id
	}
	return ids
}

// StateWritable reports whether this process could write the state file
// at path, as the daemon does: the file when it exists, and its nearest
// existing directory. The error names the one that is not writable; on
// systems other than Unix and Windows it wraps errors.ErrUnsupported.
func StateWritable(path string) error {
	if _, err := os.Lstat(path); err == nil {
		if err := writable(path); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	dir := filepath.Dir(path)
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		if dir == filepath.Dir(dir) {
			break
		}
		dir = filepath.Dir(dir)
	}
	if err := writable(dir); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	return nil
}

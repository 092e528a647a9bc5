package schedule

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// canonicalStore returns the canonical package store path of an FS root,
// so that /hab/pkgs, /hab/../hab/pkgs/ and a symlink to it are one store.
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

// machineID is a machine's identity for randomized times: explicit when
// not blank, else fsRoot/etc/machine-id, else the host name.
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

// stateMachineID is the identity the FS root's jobs' times were drawn
// with by a daemon whose state file is statePath: explicit when not blank,
// else the recorded one, else machineID's.
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

// storeIDs returns (and records in st) the identities of the stores
// moved behind a symlink: a store path a job recorded that now resolves
// elsewhere stays the identity of the store it leads to, unless that store
// has jobs of its own (another store, not a move).
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
// at path: the file when it exists, and its nearest existing directory.
// The error names the one that is not; on systems other than Unix and
// Windows it wraps errors.ErrUnsupported.
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

package schedule

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// MachineIDEnv is the environment variable that names a machine's
// identity for randomized times, replacing FS_ROOT/etc/machine-id, the
// host name and the identity a state file recorded.
const MachineIDEnv = "HAB_GC_MACHINE_ID"

// MachineID is a machine's identity for randomized times (HashInput's
// Machine): explicit (the value of MachineIDEnv) when it is not blank,
// else the content of fsRoot/etc/machine-id (read without blocking, at
// most 4 KiB), else the host name. With none of them it fails, saying to
// set MachineIDEnv.
func MachineID(fsRoot, explicit string) (string, error) {
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

// StateMachineID is the identity the times of the jobs of the FS root
// fsRoot were drawn with by a daemon whose state file is statePath:
// explicit when not blank (it replaces the recorded one), else the
// identity that state recorded for fsRoot, else MachineID(fsRoot, ""). A
// state file that cannot be read counts as none.
func StateMachineID(fsRoot, explicit, statePath string) (string, error) {
	machine, err := MachineID(fsRoot, explicit)
	if err != nil || strings.TrimSpace(explicit) != "" {
		return machine, err
	}
	if st, err := LoadState(statePath); err == nil && st.Machines[rootOf(fsRoot)] != "" {
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

// StoreFSRoot is the FS root of a store named by its FS root or by its
// hab/pkgs directory (as `schedule next --store` takes either).
func StoreFSRoot(store string) string {
	clean := filepath.Clean(store)
	if hab := filepath.Dir(clean); filepath.Base(clean) == "pkgs" && filepath.Base(hab) == "hab" {
		return filepath.Dir(hab)
	}
	return store
}

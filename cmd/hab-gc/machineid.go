package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// machineID is this machine's identity for randomized times:
// HAB_GC_MACHINE_ID when set, else FS_ROOT/etc/machine-id, else the host
// name.
func (a *app) machineID(c *config) (string, error) {
	return a.machineIDAt(c.fsRoot())
}

// machineIDAt is machineID for the FS root root.
func (a *app) machineIDAt(root string) (string, error) {
	if v, ok := a.explicitMachineID(); ok {
		return v, nil
	}
	b, err := safeio.ReadFile(filepath.Join(root, "etc", "machine-id"), 4096, safeio.FollowLinks)
	if id := strings.TrimSpace(string(b)); err == nil && id != "" {
		return id, nil
	}
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "", fmt.Errorf("no machine identity: %s/etc/machine-id is unreadable and the host name unknown: set HAB_GC_MACHINE_ID", root)
	}
	return h, nil
}

// explicitMachineID is HAB_GC_MACHINE_ID when set: it replaces the
// identity a schedule state recorded.
func (a *app) explicitMachineID() (string, bool) {
	v, ok := a.lookup("HAB_GC_MACHINE_ID")
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}

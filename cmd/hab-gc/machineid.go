package main

import (
	"strings"

	"github.com/hab-gc/hab-gc/schedule"
)

// machineIDAt is this machine's identity for randomized times
// (schedule.MachineID) for the FS root root: HAB_GC_MACHINE_ID when set,
// else root/etc/machine-id, else the host name.
func (a *app) machineIDAt(root string) (string, error) {
	v, _ := a.explicitMachineID()
	return schedule.MachineID(root, v)
}

// explicitMachineID is HAB_GC_MACHINE_ID when set: it replaces the
// identity a schedule state recorded.
func (a *app) explicitMachineID() (string, bool) {
	v, ok := a.lookup(schedule.MachineIDEnv)
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}

package main

import (
	"strings"

	"github.com/hab-gc/hab-gc/schedule"
)

// explicitMachineID is HAB_GC_MACHINE_ID, trimmed: when set, it replaces
// every FS root's identity for randomized times, and the one a schedule
// state recorded.
func (a *app) explicitMachineID() string {
	v, _ := a.lookup(schedule.MachineIDEnv)
	return strings.TrimSpace(v)
}

package schedule

// The internals the external tests use.
type Cron = cronSpec

var LoadState = loadStateFile
var NewCron = newCron
var PressureExportCron = pressureExportCron
var Resolve = resolveSpec
var SystemdUnits = systemdUnits

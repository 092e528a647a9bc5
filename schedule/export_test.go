package schedule

import "time"

// The internals the external tests use.
type (
	Cron      = cronSpec
	HashInput = hashInput
)

const UnitMarker = unitMarker

var (
	NewCron             = newCron
	PressureExportCron  = pressureExportCron
	Resolve             = resolveSpec
	SystemdUnits        = systemdUnits
	OnCalendar          = onCalendar
	IsExportedUnit      = isExportedUnit
	LoadDir             = loadDir
	DefaultSetup        = defaultSetup
	DefaultRun          = defaultRun
	MachineID           = machineID
	StateMachineID      = stateMachineID
	StoreFSRoot         = storeFSRoot
	NextRuns            = nextRuns
	ErrState            = errState
	ErrInvalidScheduler = errInvalidScheduler
)

func CanonicalParams(p Params) string { return p.canonical() }

func (s *Scheduler) NextWake(now time.Time) time.Time { return s.nextWake(now) }

func LoadState(path string) (*stateFile, error) {
	st, _, err := readStateFile(path)
	return st, err
}

package retention

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// lowerIOPriority puts the calling goroutine's thread in the lowest
// best-effort I/O priority class (ioprio_set(2); the idle class could
// starve the run behind a busy neighbour). On Linux IOPRIO_WHO_PROCESS
// with 0 is the calling thread only, so the goroutine stays on its
// thread, and never unlocks it: the thread ends with the goroutine
// instead of serving other goroutines at that priority. Schedulers that
// ignore priorities (none, some mq-deadline setups) make this a no-op:
// the pacer does not rely on it.
func lowerIOPriority() {
	runtime.LockOSThread()
	const (
		whoProcess = 1 // IOPRIO_WHO_PROCESS
		classBE    = 2 // IOPRIO_CLASS_BE
		classShift = 13
		lowest     = 7
	)
	unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, 0, classBE<<classShift|lowest)
}

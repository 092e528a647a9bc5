package retention

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// lowerIOPriority sets the thread's lowest best-effort I/O priority (idle
// could starve the run). It applies to the calling thread only, which it
// never unlocks: the thread ends with the goroutine.
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

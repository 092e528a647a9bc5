package testtool

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
)

// noSignals says why a test cannot signal a process on Windows.
const noSignals = "Windows has no signal to send another process (os.Process.Signal supports only Kill there); " +
	"hab-gc stops there on a console's Ctrl+C or Ctrl+Break, which a test under Wine 8.0 can send a child only by " +
	"interrupting every process on a console of its own, itself included (GenerateConsoleCtrlEvent to the child's group fails)"

// NeedSignals skips t on Windows: a test of what a process does when
// asked to stop (SIGTERM, SIGINT) cannot ask it there, and the process
// would run on while the test waited for it.
func NeedSignals(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip(noSignals)
	}
}

// Terminate stops cmd's process, started by the test, as a service
// manager does, and waits for it: SIGTERM, then Wait's error (its exit
// status). On Windows, which has no SIGTERM to send (noSignals), the
// process is killed and Terminate returns nil once it has ended, logging
// that its own clean stop was not tested: a test whose subject is the
// stop calls NeedSignals.
func Terminate(t testing.TB, cmd *exec.Cmd) error {
	t.Helper()
	if runtime.GOOS != "windows" {
		cmd.Process.Signal(syscall.SIGTERM) // fails only once it has ended: Wait says how
		return cmd.Wait()
	}
	t.Logf("killed process %d (its stop on a signal is not tested: %s)", cmd.Process.Pid, noSignals)
	cmd.Process.Kill()
	cmd.Wait()
	return nil
}

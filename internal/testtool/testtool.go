package testtool

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// InCI reports whether the tests run in CI (CI=true), where .ci/run has
// installed every program the tests use.
func InCI() bool { return os.Getenv("CI") == "true" }

// Need returns the path of program, which the Debian package pkg provides.
// When it is not on PATH it skips t, or fails t in CI; on Windows (the
// tests under Wine) a Debian program is never there, and t is skipped.
func Need(t testing.TB, program, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(program)
	if err == nil {
		return p
	}
	if runtime.GOOS == "windows" {
		t.Skipf("%s (Debian's %s) is a Linux program: this test needs Linux", program, pkg)
	}
	if InCI() {
		t.Fatalf("%s is not installed (CI=true: .ci/run installs Debian's %s): %v", program, pkg, err)
	}
	t.Skipf("%s is not installed (apt-get install %s): %v", program, pkg, err)
	return ""
}

//go:build !unix

package retention_test

import (
	"os"
	"os/exec"
	"testing"
)

// asNobody needs Unix credentials: elsewhere it skips the test.
func asNobody(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	t.Skip("running a process as another user needs Unix credentials")
}

// lockedElsewhere needs flock(2): elsewhere it skips the test.
func lockedElsewhere(t *testing.T, f *os.File) bool {
	t.Helper()
	t.Skip("checking a flock needs Unix")
	return false
}

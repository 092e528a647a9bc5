package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestEmptyProcRefused: hab-gc in a mount namespace whose /proc is an
// empty directory (a chroot or container without proc mounted: here an
// empty tmpfs over it) sees no process at all. That is blindness, not
// proof that nothing runs: the run refuses (exit 3) as when /proc cannot
// be listed, and the release a real process executes stays.
func TestEmptyProcRefused(t *testing.T) {
	t.Parallel()
	unshare := testtool.Need(t, "unshare", "util-linux")
	if os.Geteuid() != 0 {
		t.Skip("mounting over /proc in a new mount namespace needs root")
	}
	habgc, err := exec.LookPath("hab-gc") // testscript.Main's link to this binary
	noErr(t, err)
	b, p := runningOld(t)
	cmd := exec.Command(unshare, "--mount", "--propagation", "private", "--",
		"sh", "-c", `mount -t tmpfs empty /proc && exec "$0" "$@"`,
		habgc, "run", "--keep-latest=1", "--min-age=none", "--fs-root", b.Root)
	out, err := cmd.CombinedOutput()
	code := exitCodeOf(t, err)
	if _, serr := os.Stat(b.PkgPath(old)); serr != nil {
		t.Errorf("the release process %d executes was removed: %v", p.PID(), serr)
	}
	if code != exitRefused {
		t.Errorf("exit %d, want %d (refused: no process could be seen)", code, exitRefused)
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

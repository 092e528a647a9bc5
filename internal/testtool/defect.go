package testtool

import (
	"os"
	"testing"
)

// KnownDefect marks a test that describes behaviour hab-gc does not have
// yet: it skips, naming what is missing, unless HABGC_KNOWN_DEFECTS=1,
// when it runs and fails until the behaviour lands. The fix removes the
// call in the same commit, so the test guards it from then on.
func KnownDefect(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("HABGC_KNOWN_DEFECTS") != "1" {
		t.Skipf("known defect (HABGC_KNOWN_DEFECTS=1 runs it): %s", what)
	}
}

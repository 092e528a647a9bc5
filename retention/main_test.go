package retention_test

import (
	"os"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestMain: the crash, listing and install tests re-execute this binary,
// and their children must end when their work does (NoRaceExitSleep).
func TestMain(m *testing.M) {
	testtool.NoRaceExitSleep()
	os.Exit(m.Run())
}

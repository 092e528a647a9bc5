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
	if dir := os.Getenv(paceWriterEnv); dir != "" {
		paceWriter(dir)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

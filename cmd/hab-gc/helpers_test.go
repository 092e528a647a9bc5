package main

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// reasonJSON is one reason of a decision in a JSON report.
type reasonJSON struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// outcomeJSON is what became of a removal, in a JSON report.
type outcomeJSON struct {
	Status string `json:"status"`
}

// noEnv is an environment with nothing set.
// setenv gives the test the variables of env: viper reads the settings'
// variables from the process's environment, so the test is not parallel.
func setenv(t *testing.T, env map[string]string) {
	for k, v := range env {
		t.Setenv(k, v)
	}
}

func noEnv(string) (string, bool) { return "", false }

// exitCodeOf is the exit code of a process that ended with err (from
// exec.Cmd's Run or Wait): 0 for none, its code for an exit error; any
// other error fails the test.
func exitCodeOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// noErr fails the test on an error.
func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// hostStore is a new store laid out for the target hab-gc scans for when
// given none, the machine's (pkgstore.DefaultTarget: x86_64-windows on
// Windows, where Habitat lays releases out so), for a test that runs
// hab-gc without --target.
func hostStore(t *testing.T) *storetest.Builder {
	t.Helper()
	b := storetest.New(t)
	b.Target = pkgstore.DefaultTarget()
	return b
}

// hostInstaller installs into b's store as Habitat does on this machine:
// its active target, and that of the archives it is given without one,
// is b's.
func hostInstaller(b *storetest.Builder, seed uint64) *storetest.Installer {
	in := storetest.NewInstaller(b.Root, seed)
	in.Target = b.Target
	return in
}

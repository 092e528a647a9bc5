package main

import (
	"errors"
	"os/exec"
	"testing"
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

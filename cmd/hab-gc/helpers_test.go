package main

import "testing"

// noEnv is an environment with nothing set.
func noEnv(string) (string, bool) { return "", false }

// noErr fails the test on an error.
func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

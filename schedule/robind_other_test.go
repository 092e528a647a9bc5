//go:build !linux

package schedule_test

import "testing"

// roBind needs a Linux read-only bind mount: elsewhere it skips the test.
func roBind(t *testing.T, dir string) {
	t.Helper()
	t.Skip("a read-only bind mount needs Linux")
}

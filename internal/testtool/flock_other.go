//go:build !unix

package testtool

import "testing"

// HoldFlock needs flock(2) and util-linux flock(1), which only Unix has:
// elsewhere it skips the test.
func HoldFlock(t testing.TB, path string) {
	t.Helper()
	t.Skip("holding a flock from another process needs Unix flock(1)")
}

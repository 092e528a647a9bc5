//go:build !unix

package storetest

import "testing"

// Deep works relative to directory descriptors (openat, mkdirat), which
// only Unix has: elsewhere it skips the test.
func Deep(t testing.TB, dir string, depth int) {
	t.Helper()
	t.Skip("a tree deeper than PATH_MAX needs openat and mkdirat (Unix)")
}

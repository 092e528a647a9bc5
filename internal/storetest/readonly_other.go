//go:build !linux

package storetest

import "testing"

// ReadOnly needs a Linux read-only bind mount: elsewhere it skips the
// test.
func ReadOnly(t testing.TB, dir string) string {
	t.Helper()
	t.Skip("a read-only bind mount needs Linux")
	return ""
}

package storetest

import (
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// Open opens the store under fsRoot (pkgstore.Open) for the rest of the
// test, failing it if the store cannot be opened; the test's cleanup
// closes it.
func Open(t testing.TB, fsRoot string) *pkgstore.Store {
	t.Helper()
	s, err := pkgstore.Open(fsRoot)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

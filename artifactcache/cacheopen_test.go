package artifactcache

import "testing"

// openCache opens the artifact cache under root (Open) for the rest of the
// test, failing it if the cache cannot be opened; the test's cleanup
// closes it.
func openCache(t *testing.T, root string) *Cache {
	t.Helper()
	c, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

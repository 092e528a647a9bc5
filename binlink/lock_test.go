package binlink_test

import (
	"context"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// lock takes the store's lock, as a run does before Apply, until the test
// ends.
func lock(t *testing.T, store *pkgstore.Store) {
	t.Helper()
	unlock, err := store.Lock(context.Background(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unlock() })
}

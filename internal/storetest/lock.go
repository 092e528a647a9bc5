package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// HoldLock takes the exclusive lock of the store at fsRoot, as another
// hab-gc would, failing the test if it cannot. The returned function
// releases it; the test's cleanup releases it too, and closes the store.
func HoldLock(t testing.TB, fsRoot string) (release func()) {
	t.Helper()
	st, err := pkgstore.Open(fsRoot)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := st.Lock(context.Background(), 0)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	var once sync.Once
	release = func() { once.Do(func() { unlock(); st.Close() }) }
	t.Cleanup(release)
	return release
}

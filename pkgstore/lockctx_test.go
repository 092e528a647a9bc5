package pkgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// A context that ends while Lock waits for a lock held
// elsewhere gives ErrLocked (saying who holds it) as well as the
// context's error, not the bare context error.
func TestLockContextEndIsErrLocked(t *testing.T) {
	root := storetest.New(t).Root
	a := storetest.Open(t, root)
	unlock, err := a.Lock(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	b := storetest.Open(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = b.Lock(ctx, time.Minute)
	if !errors.Is(err, pkgstore.ErrLocked) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrLocked and DeadlineExceeded", err)
	}
}

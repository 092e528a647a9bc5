package pkgstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"

	"runtime"
)

// A lock this process holds (another Store, an Apply
// not yet returned) is never blamed on "another hab-gc".
func TestLockHeldByThisProcessSaysSo(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no table of lock holders (Linux's /proc/locks): the holder is named by the pid in the lock file, unverified, and never as this process")
	}
	b := storetest.New(t)
	unlock, err := openStore(t, b.Root).Lock(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	_, err = openStore(t, b.Root).Lock(context.Background(), 0)
	if !errors.Is(err, pkgstore.ErrLocked) {
		t.Fatalf("got %v, want ErrLocked", err)
	}
	if msg := err.Error(); strings.Contains(msg, "another hab-gc") || !strings.Contains(msg, "this process") {
		t.Fatalf("a lock held by this process reads: %s", msg)
	}
}

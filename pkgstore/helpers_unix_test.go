//go:build unix

package pkgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// bounded runs f and fails the test when it has not returned within d:
// a hang fails the test instead of the suite.
func bounded[T any](t *testing.T, d time.Duration, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("still running after %s: hung", d)
		panic("unreachable")
	}
}

type lockResult struct {
	unlock func() error
	err    error
}

func tryLock(t *testing.T, st *pkgstore.Store, timeout time.Duration) lockResult {
	t.Helper()
	return bounded(t, 10*time.Second, func() lockResult {
		u, err := st.Lock(context.Background(), timeout)
		return lockResult{u, err}
	})
}

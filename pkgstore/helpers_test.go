package pkgstore_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

func itoa(n int) string { return strconv.Itoa(n) }

func nanotime() int64 { return time.Now().UnixNano() }

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

func openStore(t *testing.T, root string) *pkgstore.Store {
	t.Helper()
	st, err := pkgstore.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func scan(t *testing.T, root string) *pkgstore.Inventory {
	t.Helper()
	inv, err := pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-linux", Sizes: true})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func idents(rs []*pkgstore.Release) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Ident.String())
	}
	return out
}

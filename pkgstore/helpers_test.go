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

package retention_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/retention"
)

// A plan applied to another store is refused with
// ErrOtherStore, whose message names both stores' paths (it compared an
// FS root with a store path).
func TestOtherStoreMessage(t *testing.T) {
	a, b := storetest.New(t).Root, storetest.New(t).Root
	p, err := planStore(t, a, retention.Policy{KeepLatest: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := storetest.Open(t, b)
	_, err = p.Apply(context.Background(), s)
	if !errors.Is(err, retention.ErrOtherStore) {
		t.Fatalf("err = %v, want ErrOtherStore", err)
	}
	if !strings.Contains(err.Error(), filepath.Join(a, "hab", "pkgs")+" ") || !strings.Contains(err.Error(), filepath.Join(b, "hab", "pkgs")+" ") {
		t.Errorf("message %q does not name both store paths", err)
	}
}

package pkgstore_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestOpenRefusesEmptyFSRoot: Open("") opened the
// machine's /hab/pkgs; an empty FS root is an error wrapping ErrNoStore,
// never the machine's store nor the working directory's.
func TestOpenRefusesEmptyFSRoot(t *testing.T) {
	wd := testtool.TempDir(t)
	t.Chdir(wd)
	if err := os.MkdirAll(filepath.Join(wd, pkgstore.StoreDir), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := pkgstore.Open("")
	if !errors.Is(err, pkgstore.ErrNoStore) {
		if st != nil {
			t.Errorf("opened %s", st.Path())
			st.Close()
		}
		t.Fatalf("Open(\"\"): %v, want ErrNoStore", err)
	}
}

package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
)

var update = flag.Bool("update", false, "rewrite testdata/demo from storetest.Demo, and the golden files of the scripts")

// TestDemoStoreUpToDate keeps the store shipped in testdata/demo (which the
// README's first command runs on) equal to what storetest.Demo builds.
func TestDemoStoreUpToDate(t *testing.T) {
	const dir = "../../testdata/demo"
	if *update {
		os.RemoveAll(dir)
		storetest.Demo(storetest.At(t, dir))
		return
	}
	fresh := testtool.TempDir(t)
	storetest.Demo(storetest.At(t, fresh))
	// The lock file (gitignored) is made by commands run on the demo store.
	diff := testtool.Need(t, "diff", "diffutils")
	out, err := exec.Command(diff, "-r", "--no-dereference", "-x", pkgstore.LockFile, fresh, filepath.FromSlash(dir)).CombinedOutput()
	if err != nil {
		t.Fatalf("testdata/demo differs from storetest.Demo (run go test ./cmd/hab-gc -run Demo -update):\n%s", out)
	}
}

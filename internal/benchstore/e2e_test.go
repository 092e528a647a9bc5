package benchstore_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/benchstore"
)

// TestCheckDryRun exercises the end-to-end harness BenchmarkScan uses on a
// small generated store: the built CLI plans every release, and the check
// fails on a wrong release count, on a damaged store (problems) and on a
// non-zero exit, with the command's standard error in the error.
func TestCheckDryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds hab-gc")
	}
	bin, err := benchstore.BuildCLI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := benchstore.Generate(root, 50); err != nil {
		t.Fatal(err)
	}
	damaged := t.TempDir()
	if err := benchstore.Generate(damaged, 50); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(damaged, "hab/pkgs/core/base00/1.0.0/20200101000000x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	idents, _ := filepath.Glob(filepath.Join(damaged, "hab/pkgs/core/base01/*/*/IDENT"))
	if len(idents) == 0 {
		t.Fatal("no IDENT in the generated store")
	}
	if err := os.WriteFile(idents[0], []byte("not an ident\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The peak RSS is the child's alone, not this process's: with 256
	// MiB in use here, a 50-release dry run still reports far less.
	ballast := make([]byte, 256<<20)
	for i := range ballast {
		ballast[i] = 1
	}
	defer runtime.KeepAlive(ballast)
	for _, tc := range []struct {
		name    string
		root    string
		n       int
		wantErr string // "" for success
	}{
		{"every release planned", root, 50, ""},
		{"wrong release count", root, 49, "planned 50 releases"},
		{"damaged store", damaged, 50, "2 problems"},
		{"no store exits non-zero", filepath.Join(t.TempDir(), "missing"), 50, "exit status 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, err := benchstore.CheckDryRun(bin, tc.root, tc.n)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if run.Wall <= 0 || run.MaxRSS < 1<<20 || run.MaxRSS > 128<<20 {
					t.Fatalf("run = %+v: want a positive time and a peak RSS between 1 and 128 MiB", run)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
			if strings.Contains(tc.wantErr, "exit") && !strings.Contains(err.Error(), "no usable package store") {
				t.Fatalf("err = %v: want the command's standard error in it", err)
			}
		})
	}
}

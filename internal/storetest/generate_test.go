package storetest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGenerateShape(t *testing.T) {
	root := t.TempDir()
	st, err := Generate(root, GenConfig{Packages: 400, ReleasesPerPackage: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st.Releases != 4000 {
		t.Fatalf("releases = %d, want 4000", st.Releases)
	}
	avg := st.TDepsLines / st.Releases
	if st.MinTDeps < 1 || st.MaxTDeps > 70 || avg < 5 || avg > 60 {
		t.Fatalf("TDEPS shape off: min %d max %d avg %d", st.MinTDeps, st.MaxTDeps, avg)
	}
	if _, err := os.Stat(filepath.Join(root, "hab/pkgs/core/base00")); err != nil {
		t.Fatal(err)
	}
}

//go:build linux

package onefs_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hab-gc/hab-gc/internal/onefs"
)

// Buffers reused from one walk to the next (as a scan measuring release
// after release reuses them) change nothing a walk finds: every tree of
// a random forest, walked and measured with one Buffers in turn, gives
// what a walk with none gives (bytes, mounts, and the opens and stats,
// which an entry left over from another directory would change), and
// what du gives.
func TestBuffersReusedAcrossWalks(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 7))
	forest := t.TempDir()
	var trees []string
	for i := range 60 {
		tree := filepath.Join(forest, fmt.Sprintf("tree%02d", i))
		dirs := []string{tree}
		for range rng.IntN(6) { // nested and sibling directories
			parent := dirs[rng.IntN(len(dirs))]
			dirs = append(dirs, filepath.Join(parent, fmt.Sprintf("d%d", len(dirs))))
		}
		for _, d := range dirs {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			for f := range rng.IntN(14) {
				write(t, filepath.Join(d, fmt.Sprintf("f%d", f)), string(make([]byte, rng.IntN(20_000))))
			}
		}
		trees = append(trees, tree)
	}
	parent := open(t, forest)
	var bufs onefs.Buffers
	for pass := range 2 {
		for _, tree := range trees {
			name := filepath.Base(tree)
			want, err := onefs.WalkAt(int(parent.Fd()), name, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := onefs.WalkAt(int(parent.Fd()), name, true, &bufs)
			if err != nil {
				t.Fatal(err)
			}
			if got.Bytes != want.Bytes || got.Ops != want.Ops || !slices.Equal(got.Mounts, want.Mounts) {
				t.Fatalf("pass %d, %s with reused Buffers: %+v; without: %+v", pass, name, got, want)
			}
			if du := du(t, tree); got.Bytes != du {
				t.Fatalf("pass %d, %s: measured %d, du says %d", pass, name, got.Bytes, du)
			}
		}
	}
}

package pkgstore

import (
	"fmt"
	"testing"
)

// The interner's list of idents grows a chunk at a time: every Ref it
// gives names the ident it was given, across chunk boundaries, and an
// ident met again keeps its Ref.
func TestInternerChunks(t *testing.T) {
	for _, chunk := range []int{1, 3, 64, scanChunk} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			in := newInterner()
			in.chunk = chunk
			const n = 2*scanChunk + 5
			ids := make([]Ident, n)
			for i := range ids {
				ids[i] = Ident{Origin: "core", Name: fmt.Sprintf("p%d", i%7), Version: fmt.Sprint(i), Release: "20200101000000"}
				if r := in.identLocked(ids[i]); int(r) != i {
					t.Fatalf("ident %d got Ref %d", i, r)
				}
			}
			if in.numRefs() != n {
				t.Fatalf("numRefs %d, want %d", in.numRefs(), n)
			}
			for i, id := range ids {
				if got := in.ident(Ref(i)); got != id {
					t.Fatalf("Ref %d names %v, want %v", i, got, id)
				}
				if r := in.identLocked(id); int(r) != i {
					t.Fatalf("%v met again got Ref %d, want %d", id, r, i)
				}
			}
			if len(in.idents) != (n+chunk-1)/chunk {
				t.Fatalf("%d chunks for %d idents of %d a chunk", len(in.idents), n, chunk)
			}
		})
	}
}

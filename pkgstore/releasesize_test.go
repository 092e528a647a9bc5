package pkgstore_test

import (
	"testing"
	"unsafe"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestReleaseSize: a large store's scan keeps one Release a release, so
// its size is memory at scale (peak RSS at most 1 KiB a
// release). 192 bytes is a size class of Go's allocator; a field added or
// moved that takes it past that costs 16 bytes or more a release: move
// the fields, or change this limit deliberately and say so in
// CONTRIBUTING.md (BenchmarkScan's peak RSS).
func TestReleaseSize(t *testing.T) {
	if got := unsafe.Sizeof(pkgstore.Release{}); got > 192 {
		t.Errorf("pkgstore.Release is %d bytes, want at most 192", got)
	}
}

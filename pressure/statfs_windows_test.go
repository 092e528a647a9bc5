//go:build windows

package pressure_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pressure"
)

// TestStatfsWindows: Statfs reads the volume of a directory, of a file
// (its directory's), and of a path past MAX_PATH; its size is the one the
// older GetDiskFreeSpace gives in clusters; a path that is not there is
// an error (fs.ErrNotExist), not a volume with no room.
func TestStatfsWindows(t *testing.T) {
	dir := testtool.TempDir(t)
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := dir
	for len(long) < 300 {
		long = filepath.Join(long, strings.Repeat("d", 50))
	}
	if err := os.MkdirAll(long, 0o755); err != nil {
		t.Fatal(err)
	}
	var spc, bps, freeClusters, clusters uint32
	root, _ := windows.UTF16PtrFromString(filepath.VolumeName(dir) + `\`)
	proc := windows.NewLazySystemDLL("kernel32.dll").NewProc("GetDiskFreeSpaceW")
	if r, _, err := proc.Call(uintptr(unsafe.Pointer(root)), uintptr(unsafe.Pointer(&spc)), uintptr(unsafe.Pointer(&bps)),
		uintptr(unsafe.Pointer(&freeClusters)), uintptr(unsafe.Pointer(&clusters))); r == 0 {
		t.Fatal(err)
	}
	total := int64(clusters) * int64(spc) * int64(bps)
	for _, p := range []string{dir, file, long} {
		sp, err := pressure.Statfs(p)()
		if err != nil {
			t.Fatalf("Statfs(%s): %v", p, err)
		}
		if sp.Total <= 0 || sp.Avail < 0 || sp.Avail > sp.Total {
			t.Errorf("Statfs(%s) = %+v", p, sp)
		}
		// GetDiskFreeSpace counts clusters in 32 bits: it agrees below
		// 2^32 clusters.
		if clusters < 1<<32-1 && sp.Total != total {
			t.Errorf("Statfs(%s).Total = %d, GetDiskFreeSpace says %d", p, sp.Total, total)
		}
	}
	if _, err := pressure.Statfs(filepath.Join(dir, "absent"))(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a path not there: %v, want fs.ErrNotExist", err)
	}
}

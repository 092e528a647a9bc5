package onefs_test

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/onefs"
)

const sampleMountInfo = `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
36 22 0:32 / /hab/pkgs/core/redis/4.0.14/20200101000000/config rw - tmpfs none rw
37 22 8:1 /srv/cfg /hab/pkgs/core/a\040b/1/2/with\134slash rw - ext4 /dev/sda1 rw
38 22 0:33 / /hab/pkgs rw - tmpfs none rw
39 22 0:34 / /hab/pkgsmore/x rw - tmpfs none rw
short line
`

func TestParseMountInfo(t *testing.T) {
	skipOnWindows(t)
	got := onefs.ParseMountInfo([]byte(sampleMountInfo))
	want := []string{"/", "/hab/pkgs/core/redis/4.0.14/20200101000000/config", `/hab/pkgs/core/a b/1/2/with\slash`, "/hab/pkgs", "/hab/pkgsmore/x"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
	under := onefs.Under("/hab/pkgs", got)
	wantUnder := []string{"core/redis/4.0.14/20200101000000/config", `core/a b/1/2/with\slash`}
	if !slices.Equal(under, wantUnder) {
		t.Fatalf("under: got %q", under)
	}
}

func FuzzParseMountInfo(f *testing.F) {
	skipOnWindows(f)
	f.Add([]byte(sampleMountInfo))
	f.Add([]byte(`1 2 3:4 / /a\0 x`))
	f.Add([]byte(`1 2 3:4 / /a\777\1 x`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ms := onefs.ParseMountInfo(data)
		if len(ms) > strings.Count(string(data), "\n")+1 {
			t.Fatalf("%d mount points from %d lines", len(ms), strings.Count(string(data), "\n")+1)
		}
		for _, rel := range onefs.Under("/hab/pkgs", ms) {
			if rel == "" || rel == "." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
				t.Fatalf("%q is not strictly inside", rel)
			}
		}
	})
}

// skipOnWindows: /proc/self/mountinfo and its slash paths are Linux's; on
// Windows mount points are reparse points, met by Walk and RemoveAll
// (onefs_windows_test.go).
func skipOnWindows(t testing.TB) {
	if runtime.GOOS == "windows" {
		t.Skip("mountinfo is Linux's: on Windows mount points are junctions and volume mount points (TestWalkWindows)")
	}
}

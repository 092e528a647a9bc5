package runroots

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenBeneathFollowsNoSymlink: the probe opens a release directory in
// one call, and a symlink at any component of its path (to a directory
// outside the store, here) is refused, never followed, as opening one
// component at a time with O_NOFOLLOW refuses it.
func TestOpenBeneathFollowsNoSymlink(t *testing.T) {
	store, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{"core/real/1.0/20200101000000", "elsewhere/n/1.0/20200101000000"} {
		if err := os.MkdirAll(filepath.Join(store, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(outside, "1.0", "20200101000000"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Symlink(outside, filepath.Join(store, "core", "name"))
	os.Symlink(filepath.Join(store, "elsewhere"), filepath.Join(store, "origin"))
	os.Symlink(filepath.Join(outside, "1.0", "20200101000000"), filepath.Join(store, "core", "real", "1.0", "20210101000000"))
	os.WriteFile(filepath.Join(store, "core", "real", "1.0", "file"), nil, 0o644)
	sfd, err := unix.Open(store, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(sfd)
	if _, err := openBeneath(sfd, "core/real/1.0/20200101000000"); errors.Is(err, unix.ENOSYS) {
		t.Skip("no openat2 here: the probe opens one component at a time")
	}
	tests := []struct {
		rel  string
		want error
	}{
		{"core/real/1.0/20200101000000", nil},
		{"core/name/1.0/20200101000000", unix.ELOOP},
		{"origin/n/1.0/20200101000000", unix.ELOOP},
		// The last component a symlink: not a directory (O_NOFOLLOW with
		// O_DIRECTORY), as the open one component at a time says.
		{"core/real/1.0/20210101000000", unix.ENOTDIR},
		{"core/real/1.0/file", unix.ENOTDIR},
		{"core/real/1.0/missing", unix.ENOENT},
		{"core/real/../../../" + filepath.Base(outside), unix.EXDEV},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			fd, err := openBeneath(sfd, tt.rel)
			if err == nil {
				unix.Close(fd)
			}
			if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

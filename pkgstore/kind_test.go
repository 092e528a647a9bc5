//go:build unix

package pkgstore_test

import (
	"net"
	"os"
	"regexp"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// rawMode is how Go prints a file mode ("L---------", "d---------"):
// never shown to people.
var rawMode = regexp.MustCompile(`[a-zA-Z?]+-{9}`)

// Problems name what is not a directory or a regular file in words: a FIFO,
// a socket or a device where a store directory belongs, a device at TARGET.
func TestProblemsNameKindsInWords(t *testing.T) {
	const rel = "core/a/1/20200101000000"
	cases := []struct {
		name, path string // relative to the FS root
		make       func(t *testing.T, path string)
		says       string
	}{
		{"FIFO as a version", "hab/pkgs/core/b/2", func(t *testing.T, p string) {
			if err := unix.Mkfifo(p, 0o644); err != nil {
				t.Skip(err)
			}
		}, "named pipe (FIFO)"},
		{"socket as an origin", "hab/pkgs/zz", func(t *testing.T, p string) {
			l, err := net.ListenUnix("unix", &net.UnixAddr{Name: p, Net: "unix"})
			if err != nil {
				t.Skip(err)
			}
			l.SetUnlinkOnClose(false)
			l.Close()
		}, "socket"},
		{"device as a release", "hab/pkgs/core/b/1/20210101000000", func(t *testing.T, p string) {
			mknod(t, p, unix.S_IFCHR, 1, 3)
		}, "character device"},
		{"device at TARGET", "hab/pkgs/" + rel + "/TARGET", func(t *testing.T, p string) {
			mknod(t, p, unix.S_IFBLK, 7, 0)
		}, "block device"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg(rel).Pkg("core/b/1/20200101000000")
			os.Remove(b.Path(c.path))
			c.make(t, b.Path(c.path))
			inv := scan(t, b.Root)
			found := false
			for _, p := range inv.Problems {
				if rawMode.MatchString(p.Message) {
					t.Errorf("problem %v shows a raw mode", p)
				}
				if p.Path == c.path && regexp.MustCompile(regexp.QuoteMeta(c.says)).MatchString(p.Message) {
					found = true
				}
			}
			if !found {
				t.Errorf("no problem at %s says %q: %v", c.path, c.says, inv.Problems)
			}
		})
	}
}

//go:build unix

package safeio_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// OpenRoot, OpenRootAt and ReadDir open a directory (through a symlink
// but for OpenRootAt with NoFollow) and fail at once on anything else,
// saying what it is: a FIFO never blocks them.
func TestDirectoryOpensNeverBlock(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "f"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	os.Symlink("sub", filepath.Join(dir, "link"))
	os.Symlink("fifo", filepath.Join(dir, "tofifo"))
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	parent, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	cases := []struct {
		name string
		err  error  // nil: opened
		says string // in the error
		// OpenRootAt with NoFollow refuses a symlink
		noFollow bool
	}{
		{"sub", nil, "", false},
		{"link", nil, "", true},
		{"fifo", syscall.ENOTDIR, "named pipe (FIFO)", false},
		{"tofifo", syscall.ENOTDIR, "named pipe (FIFO)", true},
		{"file", syscall.ENOTDIR, "regular file", false},
		{"missing", os.ErrNotExist, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check := func(what string, err, want error, says string) {
				t.Helper()
				if want == nil {
					if err != nil {
						t.Errorf("%s: %v", what, err)
					}
					return
				}
				if !errors.Is(err, want) || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), says) {
					t.Errorf("%s: %v; want %v naming %s (%s)", what, err, want, c.name, says)
				}
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				r, err := safeio.OpenRoot(filepath.Join(dir, c.name))
				if err == nil {
					r.Close()
				}
				check("OpenRoot", err, c.err, c.says)
				es, err := safeio.ReadDir(filepath.Join(dir, c.name))
				check("ReadDir", err, c.err, c.says)
				if err == nil && (len(es) != 1 || es[0].Name() != "f") {
					t.Errorf("ReadDir: %v", es)
				}
				r, err = safeio.OpenRootAt(parent, c.name, safeio.FollowLinks)
				if err == nil {
					r.Close()
				}
				check("OpenRootAt", err, c.err, c.says)
				r, err = safeio.OpenRootAt(parent, c.name, safeio.NoFollow)
				if err == nil {
					r.Close()
				}
				if !c.noFollow {
					check("OpenRootAt NoFollow", err, c.err, c.says)
				} else if !errors.Is(err, syscall.ELOOP) && !(errors.Is(err, syscall.ENOTDIR) && strings.Contains(err.Error(), "symlink")) {
					// Linux says ENOTDIR for O_DIRECTORY|O_NOFOLLOW on a symlink
					t.Errorf("OpenRootAt NoFollow: %v; want the symlink refused", err)
				}
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("still opening after 10s: blocked")
			}
		})
	}
}

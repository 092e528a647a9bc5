//go:build windows

package winfs_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/internal/winfs"
)

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestWritable: Writable answers as a write would:
// yes for a file and a directory this process may write, no for a
// read-only file (Windows refuses to open one for writing), a file another
// process holds without FILE_SHARE_WRITE, and a path that is not there;
// and it writes nothing.
func TestWritable(t *testing.T) {
	dir := testtool.TempDir(t)
	file := filepath.Join(dir, "state.json")
	readOnly := filepath.Join(dir, "readonly.json")
	held := filepath.Join(dir, "held.json")
	for _, f := range []string{file, readOnly, held} {
		noErr(t, os.WriteFile(f, []byte("{}"), 0o644))
	}
	noErr(t, os.Chmod(readOnly, 0o444)) // FILE_ATTRIBUTE_READONLY
	t.Cleanup(func() { os.Chmod(readOnly, 0o644) })
	p, _ := windows.UTF16PtrFromString(held)
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ, nil, windows.OPEN_EXISTING, 0, 0)
	noErr(t, err)
	t.Cleanup(func() { windows.CloseHandle(h) })
	before, err := os.Stat(file)
	noErr(t, err)
	for _, c := range []struct {
		name string
		path string
		want error // nil: writable
	}{
		{"a file", file, nil},
		{"a directory", dir, nil},
		{"a read-only file", readOnly, windows.ERROR_ACCESS_DENIED},
		{"a file held without FILE_SHARE_WRITE", held, windows.ERROR_SHARING_VIOLATION},
		{"no such file", filepath.Join(dir, "absent.json"), fs.ErrNotExist},
		{"no such directory", filepath.Join(dir, "absent", "state.json"), fs.ErrNotExist},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := winfs.Writable(c.path)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("Writable(%s) = %v, want %v", c.path, err, c.want)
			}
		})
	}
	after, err := os.Stat(file)
	noErr(t, err)
	if !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Errorf("writable changed %s: %v %d -> %v %d", file, before.ModTime(), before.Size(), after.ModTime(), after.Size())
	}
}

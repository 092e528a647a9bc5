package safeio_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// TestDirFD reads through a DirFD what a release directory may hold:
// regular files (empty, exact, larger than the limit, larger than the
// reused buffer), a symlink (never followed), a FIFO (no hang), a
// directory, a missing name, and names that are not one component.
func TestDirFD(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"small": "hello\n", "empty": "", "exact": strings.Repeat("x", 16), "big": strings.Repeat("x", 17)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("small", filepath.Join(dir, "link"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := safeio.DirFDOf(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	buf := make([]byte, 0, 4) // smaller than most files: grown as needed
	cases := []struct {
		name string
		want string
		err  error
	}{
		{"small", "hello\n", nil},
		{"empty", "", nil},
		{"exact", strings.Repeat("x", 16), nil},
		{"big", "", safeio.ErrTooLarge},
		{"link", "", syscall.ELOOP},
		{"fifo", "", safeio.ErrNotRegular},
		{"sub", "", safeio.ErrNotRegular},
		{"missing", "", fs.ErrNotExist},
		{"../small", "", syscall.EINVAL},
		{"sub/x", "", syscall.EINVAL},
		{"..", "", syscall.EINVAL},
		{"", "", syscall.EINVAL},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var st safeio.Stat
			got, err := d.ReadFile(c.name, 16, buf, &st)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("ReadFile(%q) = %q, %v; want an error wrapping %v", c.name, got, err, c.err)
				}
				var pe *fs.PathError
				if !errors.As(err, &pe) {
					t.Errorf("error %v does not name the file", err)
				}
				return
			}
			if err != nil || string(got) != c.want {
				t.Fatalf("ReadFile(%q) = %q, %v; want %q", c.name, got, err, c.want)
			}
			if int(st.Size) != len(c.want) || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Ino == 0 {
				t.Errorf("ReadFile(%q) described it as size %d, mode %o, inode %d", c.name, st.Size, st.Mode, st.Ino)
			}
		})
	}

	t.Run("OpenDir", func(t *testing.T) {
		sub, err := d.OpenDir("sub")
		if err != nil {
			t.Fatal(err)
		}
		sub.Close()
		for name, want := range map[string]error{"link": syscall.ENOTDIR, "small": syscall.ENOTDIR, "fifo": syscall.ENOTDIR, "..": syscall.EINVAL} {
			if _, err := d.OpenDir(name); !errors.Is(err, want) {
				t.Errorf("OpenDir(%q): %v, want %v", name, err, want)
			}
		}
	})

	t.Run("Entries", func(t *testing.T) {
		es, err := d.Entries(make([]byte, 512), nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]fs.FileMode{}
		for _, e := range es {
			got[e.Name] = e.Type
		}
		want := map[string]fs.FileMode{"small": 0, "empty": 0, "exact": 0, "big": 0, "link": fs.ModeSymlink,
			"sub": fs.ModeDir, "fifo": fs.ModeNamedPipe}
		if len(got) != len(want) {
			t.Errorf("entries %v, want %v", got, want)
		}
		for n, m := range want {
			if g, ok := got[n]; !ok || g != m {
				t.Errorf("%s: type %v (listed %v), want %v", n, g, ok, m)
			}
		}
		names := make([]string, 0, len(es))
		for _, e := range es {
			names = append(names, e.Name)
		}
		if slices.Contains(names, ".") || slices.Contains(names, "..") {
			t.Errorf(". or .. listed: %v", names)
		}
	})
}

// TestDirFDManyEntries lists a directory whose entries need several
// getdents calls with a small buffer.
func TestDirFDManyEntries(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		if err := os.WriteFile(filepath.Join(dir, strings.Repeat("n", 50)+string(rune('a'+i%26))+strings.Repeat("0", i/26)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.Open(dir)
	d, err := safeio.DirFDOf(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	es, err := d.Entries(make([]byte, 1024), nil)
	if err != nil || len(es) != 300 {
		t.Fatalf("%d entries, %v; want 300", len(es), err)
	}
}

// TestDirFDReadsGeneratedFiles: a file whose size fstat gives is not its
// length (0 in /proc, a page in /sys) is still read whole: the size is
// only a hint, and a read ending at it is taken as the end only when it
// is short of the room asked.
func TestDirFDReadsGeneratedFiles(t *testing.T) {
	for _, path := range []string{"/proc/self/cmdline", "/proc/self/environ", "/sys/devices/system/cpu/online"} {
		t.Run(path, func(t *testing.T) {
			want, err := os.ReadFile(path)
			if err != nil || len(want) == 0 {
				t.Skipf("%s: %v", path, err)
			}
			f, err := os.Open(filepath.Dir(path))
			if err != nil {
				t.Skip(err)
			}
			d, err := safeio.DirFDOf(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			var st safeio.Stat
			got, err := d.ReadFile(filepath.Base(path), safeio.Limit, make([]byte, 0, 1), &st)
			if err != nil {
				t.Fatal(err)
			}
			if int64(st.Size) == int64(len(want)) {
				t.Logf("%s: fstat size %d is its length", path, st.Size)
			}
			if string(got) != string(want) {
				t.Errorf("read %d bytes %q, want %d bytes %q (fstat size %d)", len(got), got, len(want), want, st.Size)
			}
		})
	}
}

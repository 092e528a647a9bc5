//go:build windows

package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// The Unix journal tests (journal_test.go), on Windows' handle-relative
// journal: run under Wine by .ci/run.

func recW(i int, ident string) Record { return recFor(`C:\`, i, ident) }

// TestAppendReadWindows: appends make the directory (as given, and from
// an FS root down) and read back in order.
func TestAppendReadWindows(t *testing.T) {
	root := testtool.TempDir(t)
	forRoot, err := ForFSRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []Journal{{Dir: filepath.Join(testtool.TempDir(t), "hab", "sup", "default", "hab-gc")}, forRoot} {
		want := []Record{recW(1, "core/redis/6.2.5/20211101000000"), recW(2, "")}
		appendTwoRead(t, j, want)
	}
	if _, err := os.Stat(filepath.Join(root, "hab", "sup", "default", "hab-gc", fileName)); err != nil {
		t.Errorf("ForFSRoot's journal: %v", err)
	}
}

// TestRotateWindows: handle-relative deletes and renames rotate the
// journal, keeping Keep files, none past MaxSize, the newest record last.
func TestRotateWindows(t *testing.T) {
	j := Journal{Dir: testtool.TempDir(t), MaxSize: 600, Keep: 2}
	for i := range 20 {
		if err := j.Append([]Record{recW(i, "core/redis/6.2.5/20211101000000")}); err != nil {
			t.Fatal(err)
		}
	}
	checkRotatedFiles(t, j)
	got, notes, err := j.Read()
	if err != nil || len(notes) != 0 || len(got) == 0 || len(got) >= 20 {
		t.Fatalf("read %d records, %v, %v after rotation; want some, not all", len(got), notes, err)
	}
	checkRotatedRecords(t, got)
}

// TestTornLastLineWindows: an append after a crash cut the last line ends
// it first (the append-only handle's read of the last byte).
func TestTornLastLineWindows(t *testing.T) {
	j := Journal{Dir: testtool.TempDir(t)}
	if err := j.Append([]Record{recW(1, "core/a/1/20200101000000"), recW(2, "")}); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(j.Dir, fileName)
	b, _ := os.ReadFile(name)
	if err := os.WriteFile(name, append(b, `{"time":"2026-01-01T00:00:03Z","kind":"rel`...), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := j.Append([]Record{recW(4, "core/b/1/20200101000000")}); err != nil {
		t.Fatal(err)
	}
	got, notes, err := j.Read()
	if err != nil || len(got) != 3 || got[2].Ident != "core/b/1/20200101000000" || len(notes) != 1 || notes[0].Last {
		t.Fatalf("after append: records %+v, notices %+v, %v", got, notes, err)
	}
}

// TestUnsafeJournalWindows: a hard link, a symlink or a directory at the
// journal's name is never written (nor what it leads to).
func TestUnsafeJournalWindows(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, dir, victim string) error
	}{
		{"hard link", func(t *testing.T, dir, victim string) error { return os.Link(victim, filepath.Join(dir, fileName)) }},
		{"symlink", func(t *testing.T, dir, victim string) error { return os.Symlink(victim, filepath.Join(dir, fileName)) }},
		{"directory", func(t *testing.T, dir, victim string) error { return os.Mkdir(filepath.Join(dir, fileName), 0o755) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testtool.TempDir(t)
			victim := filepath.Join(testtool.TempDir(t), "passwd")
			if err := os.WriteFile(victim, []byte("root:x:0:0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tc.make(t, dir, victim); err != nil {
				t.Skipf("cannot make a %s here: %v", tc.name, err)
			}
			if tc.name == "symlink" {
				skipUnlessSymlink(t, filepath.Join(dir, fileName))
			}
			err := Journal{Dir: dir}.Append([]Record{recW(1, "")})
			if err == nil || tc.name != "directory" && !errors.Is(err, ErrUnsafe) {
				t.Fatalf("append: %v, want ErrUnsafe", err)
			}
			if b, _ := os.ReadFile(victim); string(b) != "root:x:0:0\n" {
				t.Fatalf("victim written: %q", b)
			}
		})
	}
}

// TestSymlinkedDirWindows: a symlinked journal directory, or one on the
// way down from the FS root, is not written through.
func TestSymlinkedDirWindows(t *testing.T) {
	real := testtool.TempDir(t)
	top := testtool.TempDir(t)
	link := filepath.Join(top, "hab-gc")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("cannot make a directory symlink here: %v", err)
	}
	skipUnlessSymlink(t, link)
	if err := (Journal{Dir: link}).Append([]Record{recW(1, "")}); err == nil {
		t.Error("appended through a symlinked directory")
	}
	root := testtool.TempDir(t)
	if err := os.MkdirAll(filepath.Join(root, "hab"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(root, "hab", "sup")); err != nil {
		t.Fatal(err)
	}
	if err := mustForFSRoot(t, root).Append([]Record{recW(1, "")}); err == nil {
		t.Error("appended through a symlinked hab\\sup")
	}
	if entries, _ := os.ReadDir(real); len(entries) != 0 {
		t.Errorf("written through the symlink: %v", entries)
	}
}

// skipUnlessSymlink skips a test whose symlink does not read back as one
// (Wine 8.0 makes none that do): on a Windows machine, with Developer Mode
// or as an administrator, the test shows the link is not followed.
func skipUnlessSymlink(t *testing.T, p string) {
	t.Helper()
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skipf("the symlink made reads back as %v, %v (Wine's emulation): a Windows machine shows that the journal is not written through it", fi, err)
	}
}

// TestBusyWindows: while another handle holds the journal's lock an
// append waits at most LockTimeout, or until its context ends, then fails
// with ErrBusy and writes nothing; the lock leaves the file readable.
func TestBusyWindows(t *testing.T) {
	j := Journal{Dir: testtool.TempDir(t), LockTimeout: 100 * time.Millisecond}
	if err := j.Append([]Record{recW(1, "")}); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(j.Dir, fileName)
	p, _ := windows.UTF16PtrFromString(name)
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	ol := windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(name)
	if err := j.Append([]Record{recW(2, "")}); !errors.Is(err, ErrBusy) {
		t.Errorf("append while locked: %v, want ErrBusy", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (Journal{Dir: j.Dir}).AppendContext(ctx, []Record{recW(3, "")}); !errors.Is(err, ErrBusy) {
		t.Errorf("append with an ended context while locked: %v, want ErrBusy", err)
	}
	if after, err := os.ReadFile(name); err != nil || string(after) != string(before) {
		t.Errorf("the locked journal: %v, %q, want it unchanged", err, after)
	}
	windows.CloseHandle(h)
	if err := j.Append([]Record{recW(4, "")}); err != nil {
		t.Errorf("append once the lock is released: %v", err)
	}
}

// TestConcurrentAppendWindows: writers serialize on the lock; no line is
// torn or lost.
func TestConcurrentAppendWindows(t *testing.T) {
	j := Journal{Dir: testtool.TempDir(t), MaxSize: 1 << 20}
	appendConcurrently(t, j, 4, recW)
	got, notes, err := j.Read()
	if err != nil || len(notes) != 0 || len(got) != 4*25*2 {
		t.Fatalf("records %d, notices %v, err %v", len(got), notes, err)
	}
	b, _ := os.ReadFile(filepath.Join(j.Dir, fileName))
	if n := strings.Count(string(b), "\n"); n != 4*25*2 {
		t.Errorf("%d lines, want %d", n, 4*25*2)
	}
}

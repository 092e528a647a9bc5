//go:build unix

package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

func rec(i int, ident string) Record { return recFor("/", i, ident) }

func TestAppendRead(t *testing.T) {
	j := Journal{Dir: filepath.Join(t.TempDir(), "hab", "sup", "default", "hab-gc")}
	recs, notes, err := j.Read()
	if err != nil || len(recs) != 0 || len(notes) != 0 {
		t.Fatalf("empty journal: %v %v %v", recs, notes, err)
	}
	want := []Record{rec(1, "core/redis/6.2.5/20211101000000"), rec(2, "")}
	appendTwoRead(t, j, want)
	fi, err := os.Stat(filepath.Join(j.Dir, fileName))
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("journal mode: %v %v", fi, err)
	}
}

func TestRotate(t *testing.T) {
	j := Journal{Dir: t.TempDir(), MaxSize: 600, Keep: 2}
	for i := range 20 {
		if err := j.Append([]Record{rec(i, "core/redis/6.2.5/20211101000000")}); err != nil {
			t.Fatal(err)
		}
	}
	checkRotatedFiles(t, j)
	got, notes, err := j.Read()
	if err != nil || len(notes) != 0 {
		t.Fatal(notes, err)
	}
	if len(got) == 0 || len(got) >= 20 {
		t.Fatalf("read %d records after rotation; want some, not all", len(got))
	}
	checkRotatedRecords(t, got)
}

func TestTornLastLine(t *testing.T) {
	j := Journal{Dir: t.TempDir()}
	if err := j.Append([]Record{rec(1, "core/a/1/20200101000000"), rec(2, "")}); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(j.Dir, fileName)
	b, _ := os.ReadFile(name)
	// A crash in the middle of the second append.
	torn := append(b, `{"time":"2026-01-01T00:00:03Z","kind":"rel`...)
	if err := os.WriteFile(name, torn, 0o640); err != nil {
		t.Fatal(err)
	}
	got, notes, err := j.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(notes) != 1 || !notes[0].Last || notes[0].Line != 3 || !strings.Contains(notes[0].Text, "cut short") {
		t.Fatalf("records %d, notices %+v", len(got), notes)
	}
	// The next append ends the torn line first: the new record is whole.
	if err := j.Append([]Record{rec(4, "core/b/1/20200101000000")}); err != nil {
		t.Fatal(err)
	}
	got, notes, err = j.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2].Ident != "core/b/1/20200101000000" || len(notes) != 1 || notes[0].Last {
		t.Fatalf("after append: records %+v, notices %+v", got, notes)
	}
}

func TestCorruptLines(t *testing.T) {
	j := Journal{Dir: t.TempDir()}
	good := `{"time":"2026-01-01T00:00:01Z","kind":"run","run_id":"x","job":"run","fs_root":"/","policy":{"keep_latest":1,"min_age":"1h"},"outcome":"ok","bytes_freed":0}`
	content := strings.Join([]string{good, "garbage", `{"kind":"run"}`, "", `{"time":"2026-01-01T00:00:02Z","kind":"release"}`, good}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(j.Dir, fileName), []byte(content), 0o640); err != nil {
		t.Fatal(err)
	}
	got, notes, err := j.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(notes) != 3 {
		t.Fatalf("records %d, notices %+v", len(got), notes)
	}
	for _, n := range notes {
		if n.Last {
			t.Errorf("notice %v marked last", n)
		}
	}
}

// TestUnsafeJournal: anything but a regular file with one link at the
// journal's name is never written.
func TestUnsafeJournal(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, dir, victim string)
	}{
		{"symlink", func(t *testing.T, dir, victim string) {
			if err := os.Symlink(victim, filepath.Join(dir, fileName)); err != nil {
				t.Fatal(err)
			}
		}},
		{"hard link", func(t *testing.T, dir, victim string) {
			if err := os.Link(victim, filepath.Join(dir, fileName)); err != nil {
				t.Fatal(err)
			}
		}},
		{"fifo", func(t *testing.T, dir, victim string) {
			if err := syscall.Mkfifo(filepath.Join(dir, fileName), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(t.TempDir(), "passwd")
			if err := os.WriteFile(victim, []byte("root:x:0:0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			tc.make(t, dir, victim)
			err := Journal{Dir: dir}.Append([]Record{rec(1, "")})
			if !errors.Is(err, ErrUnsafe) {
				t.Fatalf("append: %v, want ErrUnsafe", err)
			}
			if b, _ := os.ReadFile(victim); string(b) != "root:x:0:0\n" {
				t.Fatalf("victim written: %q", b)
			}
		})
	}
}

func TestSymlinkedDir(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "hab-gc")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := (Journal{Dir: link}).Append([]Record{rec(1, "")}); err == nil {
		t.Fatal("appended through a symlinked directory")
	}
	if _, err := os.Stat(filepath.Join(real, fileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("journal written through the symlink: %v", err)
	}
}

// TestConcurrentAppend: writers serialize, rotation included; no line is
// torn or lost beyond what rotation drops.
func TestConcurrentAppend(t *testing.T) {
	j := Journal{Dir: t.TempDir(), MaxSize: 1 << 20}
	appendConcurrently(t, j, 8, rec)
	got, notes, err := j.Read()
	if err != nil || len(notes) != 0 || len(got) != 8*25*2 {
		t.Fatalf("records %d, notices %v, err %v", len(got), notes, err)
	}
}

func TestFilter(t *testing.T) {
	recs := []Record{rec(1, "core/redis/6.2.5/20211101000000"), rec(2, "core/redis/7.0.0/20221101000000"),
		rec(3, "core/redis-tools/1/20200101000000"), rec(4, "")}
	redis := pkgstore.MustParseIdent("core/redis")
	v625 := pkgstore.MustParseIdent("core/redis/6.2.5")
	for _, tc := range []struct {
		name string
		f    Filter
		want int
	}{
		{"all", Filter{}, 4},
		{"package", Filter{Ident: &redis}, 2},
		{"version", Filter{Ident: &v625}, 1},
		{"since", Filter{Since: time.Date(2026, 1, 1, 0, 0, 2, 0, time.UTC)}, 3},
		{"package since", Filter{Ident: &redis, Since: time.Date(2026, 1, 1, 0, 0, 2, 0, time.UTC)}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.Select(recs); len(got) != tc.want {
				t.Fatalf("got %d records, want %d: %+v", len(got), tc.want, got)
			}
		})
	}
}

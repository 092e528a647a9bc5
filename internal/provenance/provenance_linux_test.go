package provenance

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func ownDir(t *testing.T, fsRoot string) string {
	d := filepath.Join(fsRoot, filepath.FromSlash(Dir))
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestAppendRead: the last record of a directory wins; a line a crash
// cut is skipped and the next record starts a line of its own.
func TestAppendRead(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a := Record{Ident: "core/redis/1/20240101000000", By: "hab", Dev: 1, Ino: 2}
	b := Record{Ident: "core/redis/1/20240101000000", By: Supervisor, Dev: 1, Ino: 2}
	c := Record{Ident: "core/redis/2/20240201000000", By: "cp", Dev: 1, Ino: 3}
	for _, r := range []Record{a, b} {
		if err := Append(context.Background(), root, r); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(filepath.Join(ownDir(t, root), File), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"ident":"core/torn/1/2","by":"ha`)
	f.Close()
	if err := Append(context.Background(), root, c); err != nil {
		t.Fatal(err)
	}
	recs, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[[2]uint64{1, 2}].By != Supervisor || recs[[2]uint64{1, 3}].By != "cp" {
		t.Fatalf("records: %+v", recs)
	}
	if fi, _ := os.Stat(filepath.Join(ownDir(t, root), File)); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode())
	}
}

// TestRefusesWhatIsNotItsFile: a symlink or a FIFO at the file's name,
// or a symlink on the way to it, is refused, never written through.
func TestRefusesWhatIsNotItsFile(t *testing.T) {
	t.Parallel()
	r := Record{Ident: "core/redis/1/20240101000000", By: "hab", Dev: 1, Ino: 2}
	for name, plant := range map[string]func(t *testing.T, root, victim string){
		"symlink": func(t *testing.T, root, victim string) {
			os.Symlink(victim, filepath.Join(ownDir(t, root), File))
		},
		"fifo": func(t *testing.T, root, victim string) {
			syscall.Mkfifo(filepath.Join(ownDir(t, root), File), 0o600)
		},
		"symlinked directory": func(t *testing.T, root, victim string) {
			os.MkdirAll(filepath.Join(root, "hab", "sup", "default"), 0o755)
			os.Symlink(filepath.Dir(victim), filepath.Join(root, filepath.FromSlash(Dir)))
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root, victim := t.TempDir(), filepath.Join(t.TempDir(), File)
			os.WriteFile(victim, []byte("keep\n"), 0o600)
			plant(t, root, victim)
			if err := Append(context.Background(), root, r); err == nil {
				t.Errorf("Append wrote through a %s", name)
			}
			if _, err := Read(root); err == nil {
				t.Errorf("Read read through a %s", name)
			}
			if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
				t.Errorf("the file behind the %s was changed: %q", name, b)
			}
		})
	}
}

// TestCompact: past compactAt, only the records of release directories
// still installed (same device and inode) are kept.
func TestCompact(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	rel := "core/redis/1/20240101000000"
	p := filepath.Join(root, "hab", "pkgs", filepath.FromSlash(rel))
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for i := 0; buf.Len() <= compactAt; i++ {
		buf.WriteString(`{"ident":"core/gone/1/20240101000000","by":"hab","dev":1,"ino":` + strings.Repeat("9", 1+i%9) + "}\n")
	}
	os.WriteFile(filepath.Join(ownDir(t, root), File), buf.Bytes(), 0o600)
	if err := Append(context.Background(), root, Record{Ident: rel, By: Supervisor, Dev: uint64(st.Dev), Ino: uint64(st.Ino)}); err != nil {
		t.Fatal(err)
	}
	if err := Append(context.Background(), root, Record{Ident: "core/new/1/20240101000000", By: "hab", Dev: 7, Ino: 7}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(ownDir(t, root), File))
	if len(b) > 1024 || !strings.Contains(string(b), rel) || !strings.Contains(string(b), "core/new") || strings.Contains(string(b), "core/gone") {
		t.Fatalf("after compaction (%d bytes):\n%.500s", len(b), b)
	}
}

// TestWatch: the kernel names the program that renamed or made a release
// directory in a version directory of the store; other directories,
// hidden names and files are not installs.
func TestWatch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	store := filepath.Join(root, "hab", "pkgs")
	os.MkdirAll(filepath.Join(store, "core", "redis", "1"), 0o755)
	w, err := Watch(root)
	if err != nil {
		t.Skipf("fanotify cannot be used here: %v", err)
	}
	got := make(chan Record, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, func(r Record) { got <- r }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	run := func(name string, args ...string) {
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v %s", name, args, err, out)
		}
	}
	v := filepath.Join(store, "core", "redis", "1")
	run("mkdir", filepath.Join(root, "elsewhere"), filepath.Join(v, ".hab-pkg-install-x"), filepath.Join(store, "core", "nginx"))
	run("touch", filepath.Join(v, "20240101000009"))
	// A program that ends at once may be gone before its name is read
	// (then: Unknown); this test binary lives on until the test ends.
	installer(t, "rename", filepath.Join(v, ".hab-pkg-install-x"), filepath.Join(v, "20240101000001"))
	installer(t, "mkdir", filepath.Join(v, "20240101000002"), "")
	run("mkdir", filepath.Join(root, "temp"))
	installer(t, "rename", filepath.Join(root, "temp"), filepath.Join(store, "core", "zlib", "1.3", "20240101000003"))
	me := filepath.Base(os.Args[0])
	want := map[string]string{"core/redis/1/20240101000001": me, "core/redis/1/20240101000002": me, "core/zlib/1.3/20240101000003": me}
	for len(want) > 0 {
		select {
		case r := <-got:
			var st syscall.Stat_t
			syscall.Lstat(filepath.Join(store, filepath.FromSlash(r.Ident)), &st)
			if want[r.Ident] != r.By || r.Ino != uint64(st.Ino) || r.Dev != uint64(st.Dev) {
				t.Fatalf("record %+v; want one of %v, with the directory's device and inode", r, want)
			}
			delete(want, r.Ident)
		case <-time.After(20 * time.Second):
			t.Fatalf("no record of %v", want)
		}
	}
}

// installerEnv makes this test binary TestInstaller: it does OP on its
// two arguments (read from its input), says "done" and waits for its
// input to close.
const installerEnv = "HABGC_TEST_PROVENANCE_INSTALLER"

func TestInstaller(t *testing.T) {
	op := os.Getenv(installerEnv)
	if op == "" {
		t.Skip("run by TestWatch")
	}
	var from, to string
	fmt.Scanln(&from, &to)
	var err error
	if op == "rename" {
		// As unpack_artifact: the version directory made, then the
		// release renamed into it at once.
		if err = os.MkdirAll(filepath.Dir(to), 0o755); err == nil {
			err = os.Rename(from, to)
		}
	} else {
		err = os.Mkdir(from, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("done")
	io.Copy(io.Discard, os.Stdin)
}

// installer runs TestInstaller to do op, and returns once it has; the
// process lives until the test ends.
func installer(t *testing.T, op, from, to string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestInstaller$")
	cmd.Env = append(os.Environ(), installerEnv+"="+op)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	fmt.Fprintf(in, "%s %s\n", from, to)
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "done\n" {
		t.Fatalf("installer %s: %q %v", op, line, err)
	}
}

// TestAppendWaitsNoLongerThanItsContext: a lock held elsewhere (an
// operator's flock(1) on the file) holds Append only until its context
// ends; the record is dropped, and nothing is written.
func TestAppendWaitsNoLongerThanItsContext(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := Record{Ident: "core/redis/1/20240101000000", By: "hab", Dev: 1, Ino: 2}
	if err := Append(context.Background(), root, r); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(ownDir(t, root), File))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Append(ctx, root, Record{Ident: "core/redis/2/20240201000000", By: "hab", Dev: 1, Ino: 3})
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Append wrote past a lock held elsewhere")
		}
	case <-time.After(lockWait / 2):
		t.Fatal("Append still waits for the lock after its context ended")
	}
	if recs, _ := Read(root); len(recs) != 1 {
		t.Fatalf("records %v, want the first alone", recs)
	}
}

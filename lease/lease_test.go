package lease_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/lease"
	"github.com/hab-gc/hab-gc/pkgstore"
)

const (
	helperEnv = "HAB_GC_LEASE_HELPER"
	flockEnv  = "HAB_GC_FLOCK_HELPER"
)

// TestMain turns a re-executed test binary into a lease holder: it takes
// a lease on the idents in its arguments (or, with flockEnv, an exclusive
// flock on that file), says "held", and sleeps until killed.
func TestMain(m *testing.M) {
	testtool.NoRaceExitSleep()
	if file := os.Getenv(flockEnv); file != "" {
		f, err := os.Open(file)
		if err == nil {
			err = lockExclusive(f)
		}
		if err != nil {
			os.Stdout.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("held\n")
		select {}
	}
	if root := os.Getenv(helperEnv); root != "" {
		var ids []pkgstore.Ident
		for _, a := range os.Args[1:] {
			ids = append(ids, pkgstore.MustParseIdent(a))
		}
		l, err := lease.Acquire(root, "test helper", ids...)
		if err != nil {
			os.Stdout.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("held\n")
		// Held until killed: a lease the garbage collector finds
		// unreachable has its file closed, and its lock released.
		for {
			time.Sleep(time.Hour)
			runtime.KeepAlive(l)
		}
	}
	os.Exit(m.Run())
}

func ids(ss ...string) []pkgstore.Ident {
	var out []pkgstore.Ident
	for _, s := range ss {
		out = append(out, pkgstore.MustParseIdent(s))
	}
	return out
}

// storeRoot returns an FS root with an empty store.
func storeRoot(t *testing.T) string {
	t.Helper()
	root := testtool.TempDir(t)
	if err := os.MkdirAll(filepath.Join(root, "hab", "pkgs"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestAcquireReadRelease(t *testing.T) {
	root := storeRoot(t)
	if live, dead, err := lease.Read(root); err != nil || len(live) != 0 || dead != 0 {
		t.Fatalf("no lease directory: %v %d %v", live, dead, err)
	}
	l, err := lease.Acquire(root, "hab pkg install core/redis", ids("core/openssl/1.1.1k/20210401000000", "core/zlib")...)
	if err != nil {
		t.Fatal(err)
	}
	live, dead, err := lease.Read(root)
	if err != nil || dead != 0 || len(live) != 1 {
		t.Fatalf("Read: %+v %d %v", live, dead, err)
	}
	if h := live[0]; len(h.Idents) != 2 || h.Idents[1].String() != "core/zlib" || h.Holder == "" {
		t.Fatalf("held: %+v", h)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
	if live, _, err := lease.Read(root); err != nil || len(live) != 0 {
		t.Fatalf("after Release: %+v %v", live, err)
	}
	entries, _ := os.ReadDir(lease.Dir(root))
	if len(entries) != 0 {
		t.Fatalf("lease directory not empty after Release: %v", entries)
	}
}

// A lease dies with its holder: kill -9, and the next Read finds it dead;
// Sweep removes its file.
func TestLeaseDiesWithItsHolder(t *testing.T) {
	root := storeRoot(t)
	cmd := exec.Command(os.Args[0], "core/redis/7.0.0/20220101000000")
	cmd.Env = append(os.Environ(), helperEnv+"="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("helper: %q", line)
	}
	live, _, err := lease.Read(root)
	if err != nil || len(live) != 1 || live[0].Idents[0].String() != "core/redis/7.0.0/20220101000000" {
		t.Fatalf("while the holder lives: %+v %v", live, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	live, dead, err := lease.Read(root)
	if err != nil || len(live) != 0 || dead != 1 {
		t.Fatalf("after the holder died: live %+v dead %d %v", live, dead, err)
	}
	if n, err := lease.Sweep(root); err != nil || n != 1 {
		t.Fatalf("Sweep: %d %v", n, err)
	}
	if entries, _ := os.ReadDir(lease.Dir(root)); len(entries) != 0 {
		t.Fatalf("the dead lease's file is still there: %v", entries)
	}
}

// A live lease that cannot be read, and an entry that is not a regular
// file, are errors: what they protect is unknown.
func TestBadLeases(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, dir string)
	}{
		{"symlink", func(t *testing.T, dir string) {
			testtool.NeedSymlinks(t)
			if err := os.Symlink("/etc/passwd", filepath.Join(dir, "x.lease")); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "x.lease"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := testtool.TempDir(t)
			dir := lease.Dir(root)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.make(t, dir)
			if _, _, err := lease.Read(root); !errors.Is(err, lease.ErrBadLease) {
				t.Fatalf("Read: %v, want ErrBadLease", err)
			}
		})
	}
}

func TestParse(t *testing.T) {
	h, err := lease.Parse([]byte("# pid 1: me\n\ncore/a\n  core/b/1/2  \n# later\n"))
	if err != nil || h.Holder != "pid 1: me" || len(h.Idents) != 2 {
		t.Fatalf("%+v %v", h, err)
	}
	if _, err := lease.Parse([]byte("core\n")); err == nil {
		t.Fatal("a bad ident is accepted")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("# pid 1: x\ncore/a/1/2\n"))
	f.Add([]byte("core/a\n\n#\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := lease.Parse(b)
		if err != nil {
			return
		}
		for _, id := range h.Idents {
			if _, err := pkgstore.ParseIdent(id.String()); err != nil {
				t.Fatalf("parsed %q, which does not parse again: %v", id, err)
			}
		}
	})
}

//go:build linux

package runroots

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// fakeProc describes one process entry of a proc root made on disk: links
// are symlinks whose targets are written verbatim, as the kernel shows
// them; files hold what the kernel would.
type fakeProc struct {
	comm           string
	exe, cwd, root string
	fds            []string
	maps           string
	environ        []string
	cmdline        []string
}

func makeProc(t *testing.T, procs map[int]fakeProc) string {
	t.Helper()
	dir := t.TempDir()
	for pid, p := range procs {
		d := filepath.Join(dir, strconv.Itoa(pid))
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(os.MkdirAll(filepath.Join(d, "fd"), 0o755))
		must(os.WriteFile(filepath.Join(d, "comm"), []byte(p.comm+"\n"), 0o644))
		for name, target := range map[string]string{"exe": p.exe, "cwd": p.cwd, "root": p.root} {
			if target != "" {
				must(os.Symlink(target, filepath.Join(d, name)))
			}
		}
		for i, fd := range p.fds {
			must(os.Symlink(fd, filepath.Join(d, "fd", strconv.Itoa(i))))
		}
		must(os.WriteFile(filepath.Join(d, "maps"), []byte(p.maps), 0o644))
		nul := func(ss []string) []byte {
			if len(ss) == 0 {
				return nil
			}
			return []byte(strings.Join(ss, "\x00") + "\x00")
		}
		must(os.WriteFile(filepath.Join(d, "environ"), nul(p.environ), 0o644))
		must(os.WriteFile(filepath.Join(d, "cmdline"), nul(p.cmdline), 0o644))
	}
	// Entries that are not processes are ignored.
	if err := os.WriteFile(filepath.Join(dir, "meminfo"), []byte("MemTotal: 1 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestScanFakeProc(t *testing.T) {
	const fs = "/srv/fs"
	const st = fs + "/hab/pkgs"
	const redis = "core/redis/6.2.6/20210603120000"
	cases := []struct {
		name string
		proc fakeProc
		want string // procUse.String() of the one use expected, "" for none
	}{
		{"control characters in names", fakeProc{comm: "x\x1b[2J\u202e", root: "/", fds: []string{st + "/" + redis + "/a\nb"}},
			`process 10 (x\x1b[2J\u202e) has a\nb open`},
		{"executable", fakeProc{comm: "redis-server", exe: st + "/" + redis + "/bin/redis-server", root: "/"},
			"process 10 (redis-server) executes bin/redis-server of it"},
		{"deleted executable", fakeProc{comm: "redis-server", exe: st + "/" + redis + "/bin/redis-server (deleted)", root: "/"},
			"process 10 (redis-server) executes bin/redis-server of it"},
		{"open file", fakeProc{comm: "cat", exe: "/usr/bin/cat", root: "/", fds: []string{"/dev/null", "pipe:[123]", st + "/" + redis + "/config/redis.conf"}},
			"process 10 (cat) has config/redis.conf open"},
		{"release directory open", fakeProc{comm: "x", root: "/", fds: []string{st + "/" + redis}},
			"process 10 (x) has it open"},
		{"mapped library", fakeProc{comm: "app", root: "/", maps: "" +
			"55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1234  /usr/bin/app\n" +
			"55d0c2a00000-55d0c2a21000 rw-p 00000000 00:00 0     [heap]\n" +
			"7f1c00000000-7f1c00021000 r-xp 00000000 08:01 99    " + st + "/core/glibc/2.35/20220401000000/lib/libc so.6 (deleted)\n"},
			"process 10 (app) has lib/libc so.6 mapped"},
		{"anonymous mapping naming the store", fakeProc{comm: "app", root: "/", maps: "7f1c00000000-7f1c00021000 rw-p 00000000 00:00 0 " + st + "/" + redis + "/x\n"}, ""},
		{"working directory", fakeProc{comm: "sh", root: "/", cwd: st + "/" + redis + "/bin"},
			"process 10 (sh) has its working directory in it (bin)"},
		{"root directory", fakeProc{comm: "chrooted", root: st + "/" + redis},
			"process 10 (chrooted) has its root directory in it"},
		{"environment PATH", fakeProc{comm: "sleep", root: "/", environ: []string{"HOME=/root", "PATH=/usr/bin:" + st + "/" + redis + "/bin:/bin"}},
			"process 10 (sleep) has it in its environment (PATH)"},
		{"command line", fakeProc{comm: "redis-server", root: "/", cmdline: []string{"redis-server", "--config=" + st + "/" + redis + "/config/redis.conf"}},
			"process 10 (redis-server) names it on its command line"},
		{"environment of a process rooted at the FS root", fakeProc{comm: "sleep", root: fs, environ: []string{"PATH=/hab/pkgs/" + redis + "/bin"}},
			"process 10 (sleep) has it in its environment (PATH)"},
		{"host path in a process rooted elsewhere", fakeProc{comm: "sleep", root: "/var/lib/ct", environ: []string{"PATH=" + st + "/" + redis + "/bin"}}, ""},
		{"link of a process in another mount namespace", fakeProc{comm: "x", root: fs, exe: "/hab/pkgs/" + redis + "/bin/x"},
			"process 10 (x) executes bin/x of it"},
		{"store path at no word boundary", fakeProc{comm: "sleep", root: "/", environ: []string{"X=/opt" + st + "/" + redis}}, ""},
		{"hidden by hab-gc", fakeProc{comm: "redis-server", root: "/", fds: []string{st + "/core/redis/6.2.6/" + pkgstore.DebrisPrefix + "pending-20210603120000-ABCDEFGHIJ/bin/redis-server"}},
			"process 10 (redis-server) has bin/redis-server open, under the name hab-gc hid it by"},
		{"hidden-like name hab-gc never makes", fakeProc{comm: "x", root: "/", fds: []string{st + "/core/redis/6.2.6/" + pkgstore.DebrisPrefix + "pending-20210603120000-short/f"}}, ""},
		{"Habitat install in progress", fakeProc{comm: "hab", root: "/", fds: []string{st + "/core/redis/7.0.0/" + pkgstore.InstallTempPrefix + "-20220601000000abcdef/hab/pkgs/core/redis/7.0.0/20220601000000/TARGET"}}, ""},
		{"version directory only", fakeProc{comm: "sh", root: "/", cwd: st + "/core/redis/6.2.6"}, ""},
		{"another store", fakeProc{comm: "sh", root: "/", cwd: "/hab/pkgs/" + redis}, ""},
		{"path traversal", fakeProc{comm: "sh", root: "/", cwd: st + "/core/../../../etc/x/y/z"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proc := makeProc(t, map[int]fakeProc{10: tc.proc})
			res, err := scanProcs(context.Background(), proc, &pkgstore.Inventory{FSRoot: fs})
			if err != nil {
				t.Fatal(err)
			}
			if res.Processes != 1 || res.Inspected != 1 {
				t.Errorf("processes %d, inspected %d; want 1, 1", res.Processes, res.Inspected)
			}
			var got []string
			for _, u := range res.Uses {
				got = append(got, u.String())
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Fatalf("uses %q, want none", got)
			case tc.want != "" && (len(got) != 1 || got[0] != tc.want):
				t.Fatalf("uses %q, want [%q]", got, tc.want)
			}
		})
	}
}

func TestScanFakeProcFindsEachRelease(t *testing.T) {
	const st = "/srv/fs/hab/pkgs"
	proc := makeProc(t, map[int]fakeProc{
		1: {comm: "a", root: "/", exe: st + "/o/a/1/1/bin/a", environ: []string{"PATH=" + st + "/o/b/1/1/bin:" + st + "/o/c/1/1/bin"}},
		2: {comm: "b", root: "/", exe: st + "/o/a/1/1/bin/a"},
	})
	res, err := scanProcs(context.Background(), proc, &pkgstore.Inventory{FSRoot: "/srv/fs"})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Found()
	var got []string
	for _, r := range f.Roots {
		got = append(got, r.Ident.String()+": "+r.Text)
	}
	want := []string{
		"o/a/1/1: process 1 (a) executes bin/a of it (and 1 other process uses it)",
		"o/b/1/1: process 1 (a) has it in its environment (PATH)",
		"o/c/1/1: process 1 (a) has it in its environment (PATH)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("roots:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f.Counts["processes"] != 2 || f.Counts["inspected"] != 2 || f.Counts["releases_in_use"] != 3 {
		t.Errorf("counts %v", f.Counts)
	}
}

// A process that exits between the listing and the reads is counted as
// vanished (simulated by an entry that is gone when read).
func TestScanCountsVanished(t *testing.T) {
	proc := makeProc(t, map[int]fakeProc{1: {comm: "a", root: "/"}})
	if err := os.Symlink("/nonexistent-process-dir", filepath.Join(proc, "2")); err != nil {
		t.Fatal(err)
	}
	res, err := scanProcs(context.Background(), proc, &pkgstore.Inventory{FSRoot: "/srv/fs"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Processes != 2 || res.Inspected != 1 || res.Vanished != 1 {
		t.Fatalf("processes %d inspected %d vanished %d; want 2 1 1", res.Processes, res.Inspected, res.Vanished)
	}
	if !strings.Contains(res.Summary(), "1 exited while being read") {
		t.Errorf("summary %q", res.Summary())
	}
	res.NotRoot = true
	if !strings.Contains(res.Summary(), "not run as root") {
		t.Errorf("summary of a scan by another user %q", res.Summary())
	}
}

func TestScanErrors(t *testing.T) {
	if _, err := scanProcs(context.Background(), filepath.Join(t.TempDir(), "missing"), &pkgstore.Inventory{FSRoot: "/"}); err == nil {
		t.Fatal("no error for a missing proc root")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	proc := makeProc(t, map[int]fakeProc{1: {comm: "a", root: "/"}})
	if _, err := scanProcs(ctx, proc, &pkgstore.Inventory{FSRoot: "/"}); err == nil {
		t.Fatal("no error for a cancelled context")
	}
}

func TestNoteClassifies(t *testing.T) {
	cases := []struct {
		err                  error
		denied, gone, failed bool
	}{
		{&os.PathError{Op: "open", Path: "x", Err: os.ErrPermission}, true, false, false},
		{&os.PathError{Op: "open", Path: "x", Err: os.ErrNotExist}, false, true, false},
		{&os.PathError{Op: "read", Path: "x", Err: errESRCH}, false, true, false},
		{&os.PathError{Op: "read", Path: "x", Err: os.ErrInvalid}, false, false, true},
	}
	for _, tc := range cases {
		var st procState
		st.note("x", tc.err)
		if st.denied != tc.denied || st.gone != tc.gone || (st.failed != "") != tc.failed {
			t.Errorf("%v: %+v", tc.err, st)
		}
	}
}

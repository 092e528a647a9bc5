//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pressure"
)

// pressureStore mounts an 8 MiB tmpfs, builds a store on it (core/redis
// with four releases, core/lib with two, each release about 512 KiB; the
// oldest redis alone needs the old lib) and fills the file system with a
// filler file until `free` bytes are left. Root only: it skips otherwise.
func pressureStore(t *testing.T, free int64) *storetest.Builder {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a size-limited tmpfs (mount -t tmpfs -o size=8m)")
	}
	dir := filepath.Join(testtool.TempDir(t), "fs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("hab-gc-pressure", dir, "tmpfs", 0, "size=8m"); err != nil {
		t.Skipf("cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	blob := strings.Repeat("x", 512<<10)
	b := storetest.At(t, dir)
	b.Add(storetest.Release{Ident: "core/lib/1.0/20200101000000", Files: map[string]string{"blob": blob}})
	b.Add(storetest.Release{Ident: "core/lib/2.0/20210101000000", Files: map[string]string{"blob": blob}})
	b.Add(storetest.Release{Ident: "core/redis/1.0/20200101000000", Deps: []string{"core/lib/1.0/20200101000000"}, Files: map[string]string{"blob": blob}})
	for _, id := range []string{"core/redis/2.0/20200201000000", "core/redis/3.0/20200301000000", "core/redis/4.0/20200401000000"} {
		b.Add(storetest.Release{Ident: id, Deps: []string{"core/lib/2.0/20210101000000"}, Files: map[string]string{"blob": blob}})
	}
	sp, err := pressure.Statfs(dir)()
	if err != nil {
		t.Fatal(err)
	}
	if sp.Avail < free {
		t.Fatalf("only %d bytes free after building the store, want %d", sp.Avail, free)
	}
	if err := os.WriteFile(filepath.Join(dir, "filler"), bytes.Repeat([]byte{1}, int(sp.Avail-free)), 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

type pressureJSON struct {
	Releases []struct {
		Ident   string       `json:"ident"`
		Action  string       `json:"action"`
		Reasons []reasonJSON `json:"reasons"`
		Outcome *outcomeJSON `json:"outcome"`
	} `json:"releases"`
	FreeBefore  *int64 `json:"free_before"`
	FreeAfter   *int64 `json:"free_after"`
	MinFree     *int64 `json:"min_free"`
	MaxFree     *int64 `json:"max_free"`
	FreeMissing *int64 `json:"free_missing"`
	LargestKept []struct {
		Ident string `json:"ident"`
	} `json:"largest_kept"`
}

func runPressure(t *testing.T, root string, args ...string) (rep pressureJSON, code int, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{"run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false", "--fs-root", root, "--json"}, args...)
	code = execute(args, &out, &errb, func(string) (string, bool) { return "", false })
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("hab-gc %s: exit %d, bad JSON: %v\n%s\n%s", strings.Join(args, " "), code, err, out.String(), errb.String())
	}
	return rep, code, errb.String()
}

var alwaysKept = []string{"core/lib/2.0/20210101000000", "core/redis/4.0/20200401000000"}

// checkStore fails unless exactly the releases in gone are gone from the
// store, the kept ones untouched.
func checkStore(t *testing.T, b *storetest.Builder, gone ...string) {
	t.Helper()
	all := []string{"core/lib/1.0/20200101000000", "core/lib/2.0/20210101000000", "core/redis/1.0/20200101000000",
		"core/redis/2.0/20200201000000", "core/redis/3.0/20200301000000", "core/redis/4.0/20200401000000"}
	for _, id := range all {
		_, err := os.Stat(filepath.Join(b.PkgPath(id), "blob"))
		switch {
		case slices.Contains(gone, id) && err == nil:
			t.Errorf("%s still installed", id)
		case !slices.Contains(gone, id) && err != nil:
			t.Errorf("%s removed: %v", id, err)
		}
	}
}

func TestRunPressureFreesJustEnough(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	b := pressureStore(t, 600<<10)
	rep, code, stderr := runPressure(t, b.Root, "--min-free", "1MiB", "--max-free", "1.5MiB")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if rep.FreeBefore == nil || *rep.FreeBefore >= mib || *rep.MinFree != mib || *rep.MaxFree != 3*mib/2 {
		t.Fatalf("free_before %v, min_free %v, max_free %v", rep.FreeBefore, rep.MinFree, rep.MaxFree)
	}
	if rep.FreeAfter == nil || *rep.FreeAfter < 3*mib/2 || *rep.FreeMissing != 0 {
		t.Fatalf("free_after %v, free_missing %v: max-free not reached", rep.FreeAfter, rep.FreeMissing)
	}
	// Just enough: two releases of about 530 KiB make 1.5 MiB from 600 KiB;
	// the most superseded go first.
	want := map[string]string{
		"core/redis/1.0/20200101000000": "removed to reach max-free 1.5 MiB: the oldest of core/redis (3 newer installed; 1st in pressure order)",
		"core/redis/2.0/20200201000000": "removed to reach max-free 1.5 MiB: 2nd oldest of core/redis (2 newer installed; 2nd in pressure order)",
	}
	for _, r := range rep.Releases {
		text, ok := want[r.Ident]
		switch {
		case ok && (r.Action != "remove" || r.Outcome == nil || r.Outcome.Status != "removed"):
			t.Errorf("%s: %s, outcome %+v; want removed", r.Ident, r.Action, r.Outcome)
		case ok:
			if !slices.ContainsFunc(r.Reasons, func(x reasonJSON) bool {
				return x.Code == "disk-pressure" && x.Text == text
			}) {
				t.Errorf("%s: reasons %+v, want %q", r.Ident, r.Reasons, text)
			}
		case r.Action != "keep":
			t.Errorf("%s: %s, want keep", r.Ident, r.Action)
		}
	}
	checkStore(t, b, "core/redis/1.0/20200101000000", "core/redis/2.0/20200201000000")
}

func TestRunPressureAboveMinFree(t *testing.T) {
	b := pressureStore(t, 2<<20)
	rep, code, stderr := runPressure(t, b.Root, "--min-free", "1MiB", "--max-free", "3MiB")
	if code != 0 || !strings.Contains(stderr, "is not below min-free 1.0 MiB: nothing removed") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	for _, r := range rep.Releases {
		if r.Action != "keep" {
			t.Errorf("%s: %s, want keep", r.Ident, r.Action)
		}
	}
	checkStore(t, b)
}

func TestRunPressureNotEnough(t *testing.T) {
	t.Parallel()
	b := pressureStore(t, 300<<10)
	rep, code, stderr := runPressure(t, b.Root, "--min-free", "2MiB", "--max-free", "4MiB")
	if code != exitNotEnough {
		t.Fatalf("exit %d, want %d: %s", code, exitNotEnough, stderr)
	}
	if rep.FreeMissing == nil || *rep.FreeMissing <= 0 || !strings.Contains(stderr, "still missing to reach max-free 4.0 MiB") {
		t.Fatalf("free_missing %v, stderr %s", rep.FreeMissing, stderr)
	}
	var largest []string
	for _, r := range rep.LargestKept {
		largest = append(largest, r.Ident)
	}
	for _, id := range alwaysKept {
		if !slices.Contains(largest, id) {
			t.Errorf("largest_kept %v lacks %s", largest, id)
		}
	}
	checkStore(t, b, "core/lib/1.0/20200101000000", "core/redis/1.0/20200101000000", "core/redis/2.0/20200201000000", "core/redis/3.0/20200301000000")
}

func TestRunPressureSettings(t *testing.T) {
	root := testtool.TempDir(t)
	storetest.At(t, root)
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{args: []string{"--max-free", "1GiB"}, want: "needs min-free too"},
		{args: []string{"--min-free", "lots"}, want: `invalid min-free "lots" (from flag --min-free)`},
		{env: map[string]string{"HAB_GC_MIN_FREE": "200%"}, want: "(from environment variable HAB_GC_MIN_FREE)"},
		{args: []string{"--min-free", "2GiB", "--max-free", "1GiB"}, want: "max-free 1.0 GiB is less than min-free 2.0 GiB"},
	} {
		setenv(t, tc.env)
		var out, errb bytes.Buffer
		args := append([]string{"run", "--dry-run", "--keep-latest=1", "--fs-root", root, "--runtime-roots=false"}, tc.args...)
		code := execute(args, &out, &errb, func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
		if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v %v: exit %d, stderr %q; want exit %d and %q", tc.args, tc.env, code, errb.String(), exitUsage, tc.want)
		}
	}
}

// TestDaemonPressure: daemon --once with a [pressure] table prunes the
// store on the tmpfs just as run --min-free/--max-free does, and a second
// pass, above min-free now, removes nothing more.
func TestDaemonPressure(t *testing.T) {
	t.Parallel()
	b := pressureStore(t, 600<<10)
	dir := testtool.TempDir(t)
	def := "fs_root = " + strconv.Quote(b.Root) + "\n[pressure]\nmin_free = \"1MiB\"\nmax_free = \"1.5MiB\"\nkeep_latest = 1\nmin_age = \"none\"\n"
	if err := os.WriteFile(filepath.Join(dir, "disk.toml"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(testtool.TempDir(t), "state.json")
	cfg := filepath.Join(testtool.TempDir(t), "hab-gc.toml")
	if err := os.WriteFile(cfg, []byte("runtime_roots = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for pass := range 2 {
		var out, errb bytes.Buffer
		code := execute([]string{"daemon", "--once", "--schedules", dir, "--state", state, "--config", cfg}, &out, &errb, noEnv)
		if code != 0 {
			t.Fatalf("pass %d: exit %d: %s", pass, code, errb.String())
		}
		if pass == 0 && !strings.Contains(errb.String(), "pressure prune ran") {
			t.Errorf("pass %d: no pressure prune logged: %s", pass, errb.String())
		}
		if pass == 1 && strings.Contains(errb.String(), "pressure prune ran") {
			t.Errorf("pass %d: a pressure prune ran above min-free: %s", pass, errb.String())
		}
		checkStore(t, b, "core/redis/1.0/20200101000000", "core/redis/2.0/20200201000000")
	}
}

// TestRunPressureCacheFirst: under disk pressure with --cache, the
// archive of a release that is not installed goes first; when it frees
// enough, no release is removed.
func TestRunPressureCacheFirst(t *testing.T) {
	b := pressureStore(t, 1900<<10)
	dir := b.Path("hab/cache/artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Archives of about 600 KiB: bytes after the xz stream (which
	// Identify never reads) make them big without slow compression.
	for name, ident := range map[string]string{"old-x86_64-linux.hart": "core/redis/0.9/20190101000000", "older-x86_64-linux.hart": "core/redis/0.8/20180101000000"} {
		data := append(storetest.Hart(ident), make([]byte, 600<<10)...)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Fill again so that about 600 KiB are free.
	sp, err := pressure.Statfs(b.Root)()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.Root, "filler2"), bytes.Repeat([]byte{1}, int(sp.Avail-600<<10)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	// --install-window=1ns: the archives count as old, as a cache's
	// usually are (a test cannot age their change times); fresh, they are
	// installs in progress (TestRunCacheKeepsFetchedArchive).
	code := execute([]string{"run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false", "--fs-root", b.Root, "--json", "--install-window=1ns",
		"--cache", "--cache-keep-latest=0", "--min-free", "1MiB", "--max-free", "1.1MiB"}, &out, &errb, func(string) (string, bool) { return "", false })
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	checkStore(t, b) // no release removed: one archive was enough
	left := 0
	for _, name := range []string{"old-x86_64-linux.hart", "older-x86_64-linux.hart"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			left++
		}
	}
	if left != 1 {
		t.Fatalf("%d archives left, want 1 (just enough removed)\n%s", left, out.String())
	}
}

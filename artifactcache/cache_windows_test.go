//go:build windows

package artifactcache

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// windowsCache makes FS_ROOT\hab\cache\artifacts as Habitat fills it on
// Windows: x86_64-windows archives of core/redis.
func windowsCache(t *testing.T) (root string, names []string) {
	t.Helper()
	root = testtool.TempDir(t)
	dir := filepath.Join(root, filepath.FromSlash(Dir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"core/redis/5.0.1/20210101000000", "core/redis/6.2.5/20211101000000",
		"core/redis/6.2.6/20220101000000", "core/redis/7.0.0/20230101000000"} {
		name := pkgstore.MustParseIdent(id).ArchiveName("x86_64-windows")
		if err := os.WriteFile(filepath.Join(dir, name), storetest.Archive{Ident: id, Target: "x86_64-windows"}.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return root, names
}

// TestRemoveWindows: `run --cache` on a Windows cache: the archives the
// plan removes go, one held open without FILE_SHARE_DELETE (Habitat
// installing from it) stays, in use, one replaced since the plan stays,
// changed, and the rest are untouched.
func TestRemoveWindows(t *testing.T) {
	root, names := windowsCache(t)
	dir := filepath.Join(root, filepath.FromSlash(Dir))
	c := openCache(t, root)
	files, err := c.Plan(context.Background(), status([]string{"core/redis/7.0.0/20230101000000"}),
		Options{KeepLatest: retention.KeepNone, Now: time.Now().Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var removing []string
	for _, f := range files {
		if f.Action == Remove {
			removing = append(removing, f.File)
		}
	}
	if strings.Join(removing, " ") != strings.Join(names[:3], " ") {
		t.Fatalf("plan removes %v, want %v: %+v", removing, names[:3], files)
	}
	// names[1] is held as Habitat's install holds an archive it reads
	// (no FILE_SHARE_DELETE); names[2] is replaced by a copy.
	p, _ := windows.UTF16PtrFromString(filepath.Join(dir, names[1]))
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	replaced := filepath.Join(dir, names[2])
	data, _ := os.ReadFile(replaced)
	if err := os.Remove(replaced); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(replaced, data, 0o644); err != nil {
		t.Fatal(err)
	}
	outs := c.Remove(context.Background(), files)
	got := map[string]FileOutcome{}
	for _, o := range outs {
		got[o.File] = o
	}
	if o := got[names[0]]; o.Status != retention.StatusRemoved || o.Bytes <= 0 {
		t.Errorf("%s: %+v, want removed", names[0], o)
	}
	if o := got[names[1]]; o.Status != retention.StatusKept || !strings.HasPrefix(o.Reason, string(retention.CodeInUse)) {
		t.Errorf("%s held open: %+v, want kept, in use", names[1], o)
	}
	if o := got[names[2]]; o.Status != retention.StatusKept || !strings.HasPrefix(o.Reason, string(retention.CodeChanged)) {
		t.Errorf("%s replaced: %+v, want kept, changed", names[2], o)
	}
	for i, want := range []bool{false, true, true, true} {
		if _, err := os.Stat(filepath.Join(dir, names[i])); (err == nil) != want {
			t.Errorf("%s: there %v, want %v", names[i], err == nil, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("the cache holds %d entries, want 3 (nothing hidden left)", len(entries))
	}
}

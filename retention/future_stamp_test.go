package retention_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestFutureStampDoesNotHoldRemovals: `touch -h -d
// 2031-01-01` on a cached archive of a release not installed, or on an
// install directory (or a file unpacked into it with a future time, as
// tar keeps an archive's times), made every run wait "for the install
// (changed 2031-01-01)" until 2031. A modification time ahead of the
// clock is judged by the inode change time instead, which no program can
// set (touching the file sets it to now), and reported as a problem
// naming the file: once that is older than the install window, removals
// go ahead; while it is fresh, they still wait.
//
// A test cannot age a change time: the window is shorter than the file's
// real age instead (it waits past it), the clock the real one.
func TestFutureStampDoesNotHoldRemovals(t *testing.T) {
	future := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	const window = 50 * time.Millisecond
	instDir := "hab/pkgs/core/lib/1.0/" + pkgstore.InstallTempPrefix + "-20261201000000abcdef"
	for _, where := range []string{"archive", "install directory", "file in an install directory"} {
		for _, fresh := range []bool{false, true} {
			name := where + map[bool]string{false: ", change time older than the window", true: ", change time fresh"}[fresh]
			t.Run(name, func(t *testing.T) {
				b := storetest.New(t)
				oldPkg(b, depOld)
				oldPkg(b, depNew)
				var stamped string // relative to the FS root
				switch where {
				case "archive":
					in := storetest.NewInstaller(b.Root, 5)
					if err := in.Cache(storetest.Archive{Ident: libIdent, Payload: []string{"lib/liblib.so"}}, 0); err != nil {
						t.Fatal(err)
					}
					rel, _ := filepath.Rel(b.Root, in.ArchivePath(libIdent))
					stamped = filepath.ToSlash(rel) // as a problem names it
				case "install directory":
					stamped = instDir
					if err := os.MkdirAll(filepath.Join(b.Root, instDir, "hab", "pkgs", "core", "lib", "1.0"), 0o700); err != nil {
						t.Fatal(err)
					}
				case "file in an install directory":
					stamped = instDir + "/hab/pkgs/core/lib/1.0/20261201000000/lib/liblib.so"
					if err := os.MkdirAll(filepath.Dir(filepath.Join(b.Root, stamped)), 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(b.Root, stamped), []byte("lib"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if where != "archive" {
					// The rest of the install directory is old, as a
					// killed install's leftover.
					filepath.Walk(filepath.Join(b.Root, instDir), func(p string, _ os.FileInfo, err error) error {
						if err == nil {
							os.Chtimes(p, old, old)
						}
						return nil
					})
				}
				if err := os.Chtimes(filepath.Join(b.Root, stamped), future, future); err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Lstat(filepath.Join(b.Root, stamped)); err == nil && fileinfo.ChangeTime(fi).Equal(future) {
					// Windows' stand-in for the change time is the creation
					// time, which setting the modification time leaves as it
					// was; Wine reports the modification time for both.
					t.Skipf("setting the modification time set the change time too (%s: Wine's creation time): this test needs a file system that keeps it (Linux's ctime, Windows' creation time)", runtime.GOOS)
				}
				scan := pkgstore.Options{Target: "x86_64-linux", InstallWindow: time.Hour}
				if !fresh {
					time.Sleep(2 * window)
					scan.InstallWindow = window
				}
				s, p := openPlan(t, b.Root, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, time.Now(), scan)
				d, _ := p.Decision(pkgstore.MustParseIdent(depOld))
				if removed := d.Action == retention.Remove; removed == fresh {
					t.Fatalf("plan: %s %s %v (install wait %q), want removed %v", d.Action, depOld, d.Reasons, p.InstallWait, !fresh)
				}
				if strings.Contains(p.InstallWait, "2031") {
					t.Errorf("install wait %q judged by the future time", p.InstallWait)
				}
				if !slices.ContainsFunc(p.Inventory.Problems, func(pr pkgstore.Problem) bool {
					return pr.Kind == pkgstore.ProblemFutureTime && pr.Path == stamped && strings.Contains(pr.Message, "2031-01-01")
				}) {
					t.Errorf("problems %v: want %s naming %s and its time", p.Inventory.Problems, pkgstore.ProblemFutureTime, stamped)
				}
				if fresh {
					return
				}
				if _, err := p.Apply(context.Background(), s, retention.ApplyOptions{Settle: retention.NoSettle}); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(b.PkgPath(depOld)); err == nil {
					t.Errorf("Apply kept %s", depOld)
				}
			})
		}
	}
}

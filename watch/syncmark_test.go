package watch

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestSyncMistakesAnotherLockAttribForItsMark: a purge's last check
// (the scan after hiding and settling) must see a release renamed into
// place during the settle pause that needs a hidden release, and put that
// one back. The sync before each of Apply's scans waited for an
// attribute change (IN_ATTRIB) of the lock file, its mark; an attribute
// change of the lock file someone else made before the mark was taken
// for it, so the sync stopped before the events queued between the two,
// and the last check took the name directories they were in from the
// plan: the new release unseen, the release it needs deleted. Such a
// change: the purge's own Lock setting a lock file an older hab-gc left
// 0644 to 0600 (safeio.OpenPrivate), whose event stays unread until the
// first sync, which takes it and leaves its own mark for the second; a
// touch of the lock file during the pause (a hard link made to it is an
// IN_ATTRIB of the file's own watches only, not of the directory's).
//
// Real files, real inotify; the release is made outside the store and
// renamed into place as Habitat does (habitat-sh/habitat
// components/common/src/command/package/install.rs: unpacked into a temp
// directory, then renamed to ORIGIN/NAME/VERSION/RELEASE), after its
// TDEPS were found installed, before the hide.
func TestSyncMistakesAnotherLockAttribForItsMark(t *testing.T) {
	const (
		lib1 = "core/lib/1.0/20200101000000"
		lib2 = "core/lib/2.0/20200201000000"
		app1 = "core/app/1.0/20200101000000"
		app2 = "core/app/2.0/20200301000000"
	)
	for _, tc := range []struct {
		name string
		// lockMode is the lock file's mode before the purge.
		lockMode os.FileMode
		// during is done in the settle pause, before the release is
		// renamed into place.
		during func(t *testing.T, lock string)
	}{
		{"none", 0o600, nil},
		{"the purge's Lock tightens a lock file left 0644", 0o644, nil},
		{"the lock file touched during the pause", 0o600, func(t *testing.T, lock string) {
			now := time.Now()
			if err := os.Chtimes(lock, now, now); err != nil {
				t.Error(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			b := storetest.New(t)
			b.Mkdir(pkgstore.SpecsDir)
			b.Add(storetest.Release{Ident: lib1}, storetest.Release{Ident: lib2}, storetest.Release{Ident: app1})
			lock := b.Path(filepath.Join(pkgstore.StoreDir, pkgstore.LockFile))
			if err := os.WriteFile(lock, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(lock, tc.lockMode); err != nil {
				t.Fatal(err)
			}
			// The release to come, complete, on the same file system.
			elsewhere := storetest.At(t, filepath.Join(b.Root, "elsewhere"))
			elsewhere.Add(storetest.Release{Ident: app2, Deps: []string{lib1}, TDeps: []string{lib1}})

			store, err := pkgstore.Open(b.Root)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
			w := newWatcher(Options{Store: store, Policy: pol, All: true, Settle: 500 * time.Millisecond, NoHistory: true})
			defer w.close()
			if w.fsw == nil {
				t.Fatal("no inotify")
			}

			done := make(chan struct{})
			installed := make(chan bool, 1)
			go func() {
				defer close(done)
				// The hide: lib1's directory is renamed away.
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
					if _, err := os.Lstat(b.PkgPath(lib1)); os.IsNotExist(err) {
						break
					}
					if time.Now().After(deadline) {
						installed <- false
						return
					}
				}
				if tc.during != nil {
					tc.during(t, lock)
				}
				if err := os.MkdirAll(filepath.Dir(b.PkgPath(app2)), 0o755); err != nil {
					t.Error(err)
				}
				if err := os.Rename(elsewhere.PkgPath(app2), b.PkgPath(app2)); err != nil {
					t.Error(err)
				}
				installed <- true
			}()
			p := w.purge(ctx, pkgstore.MustParseIdent("core/lib"), TriggerUpdate)
			<-done
			if !<-installed {
				t.Fatalf("%s was never hidden: purge %v, result %+v", lib1, p.Err, p.Result)
			}
			if p.Err != nil {
				t.Fatalf("purge: %v", p.Err)
			}
			if _, err := os.Lstat(b.PkgPath(lib1)); err != nil {
				t.Fatalf("%s, needed by %s renamed into place during the settle pause, was deleted: removed %d, kept %d (%v)",
					lib1, app2, p.Result.Removed, p.Result.Kept, err)
			}
		})
	}
}

// TestSyncOnlyOnInotify: the sync vouches for what came before its mark
// only where one queue holds every watched directory's events in the
// order they were made (inotify). fsnotify on Windows reads each
// directory with a ReadDirectoryChangesW of its own, so the mark's
// directory can report before another's earlier change: there the sync
// fails, and the purge's scans read the whole store.
func TestSyncOnlyOnInotify(t *testing.T) {
	ctx := context.Background()
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: "core/a/1/20200101000000"})
	store, err := pkgstore.Open(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	w := newWatcher(Options{Store: store, Policy: retention.Policy{KeepLatest: 1}, All: true})
	defer w.close()
	if w.fsw == nil {
		t.Fatal("no fsnotify watcher")
	}
	unlock, err := store.Lock(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	err = w.sync(ctx)
	if want := runtime.GOOS == "linux"; (err == nil) != want {
		t.Fatalf("on %s, sync: %v; want it to succeed: %v", runtime.GOOS, err, want)
	}
}

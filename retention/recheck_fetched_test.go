package retention_test

import (
	"sync"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/retention"
)

// TestRecheckWaitsForFetchedArchive: the run's last
// check after the settle judges a fetched archive as the plan does. app's
// archive was cached days ago and names depOld first, then lib (not
// installed). Habitat (install.rs install_package) finds depOld installed
// ("Using"); the run, planned and re-scanned just then, hides depOld; while
// it settles Habitat downloads lib and verifies it (get_cached_artifact):
// lib's fresh archive, which does not name depOld, is all the last check
// can see. The plan waits for such an archive (Plan.InstallWait); the last
// check must too, or depOld is deleted and app lands without it.
func TestRecheckWaitsForFetchedArchive(t *testing.T) {
	b := storetest.New(t)
	oldPkg(b, depOld)
	oldPkg(b, depNew)
	in := storetest.NewInstaller(b.Root, 11)
	app := storetest.Archive{Ident: appIdent, Deps: []string{depOld, libIdent}, Payload: []string{"bin/app"}}
	if err := in.Cache(app, 72*time.Hour); err != nil {
		t.Fatal(err)
	}
	in.Publish(storetest.Archive{Ident: libIdent, Payload: []string{"lib/liblib.so"}}, storetest.Archive{Ident: depOld})

	hidden, fetched, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var hideOnce, fetchOnce sync.Once
	var putBack func()
	in.At = func(p storetest.Point) error {
		switch {
		case p.Step == storetest.StepUsing && p.Ident == depOld && putBack == nil:
			// app's archive looks as old as it is (a test cannot age
			// its ctime): out of sight while the run looks.
			putBack = moveAside(t, in.ArchivePath(appIdent))
			go func() {
				defer close(ended)
				runGC(t, b.Root, 0, 20*time.Millisecond, func(e retention.PhaseEvent) {
					if e.Phase == retention.PhaseSettle {
						hideOnce.Do(func() { close(hidden) })
						<-fetched // the last check comes while lib is verified
					}
				})
				hideOnce.Do(func() { close(hidden) })
			}()
			<-hidden
		case p.Step == storetest.StepFetched && p.Ident == libIdent:
			fetchOnce.Do(func() { close(fetched) })
			<-ended
			putBack()
		}
		return nil
	}
	if err := in.Install(appIdent); err != nil {
		t.Fatal(err)
	}
	if putBack == nil {
		t.Fatal("never paused")
	}
	if !in.Installed(depOld) {
		t.Errorf("the run deleted %s, which app's install found Using, while lib's fresh archive was verified", depOld)
	}
	requireWhole(t, b.Root)
}

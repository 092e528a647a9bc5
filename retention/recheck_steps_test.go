package retention_test

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/retention"
)

// TestRecheckAtEveryInstallStep: a run hides depOld
// just after Habitat found it installed ("Using") for app, whose archive
// was cached days ago and which also needs lib, not installed (its
// archive downloaded now, or cached days ago). While the run settles,
// the install goes on to each later point of Habitat's sequence in turn
// (storetest.Installer, install.rs) and holds there for the run's last
// check, which must bring depOld back. The points where nothing on disk
// tells of the install (a cached archive being verified, app's
// dependencies checked with lib's archive cached long ago, lib installed
// and app's temp directory not made yet) are Habitat's gaps, which no
// look at the store can close; they are listed, not checked.
func TestRecheckAtEveryInstallStep(t *testing.T) {
	gaps := map[bool]map[string]bool{
		false: {"installed " + libIdent: true},
		true:  {"installed " + libIdent: true, "cached " + libIdent: true, "deps-checked " + appIdent: true},
	}
	for _, libCached := range []bool{false, true} {
		for k := 0; ; k++ {
			name := fmt.Sprintf("lib cached %v, point %d", libCached, k)
			reached, at := recheckAt(t, name, libCached, k, gaps[libCached])
			if !reached {
				if k < 10 {
					t.Fatalf("lib cached %v: only %d points after Using", libCached, k)
				}
				break
			}
			t.Logf("%s: %s", name, at)
		}
	}
}

// recheckAt runs one install with the run's last check at the k-th point
// after depOld was found Using; reached is false when the install has
// fewer points.
func recheckAt(t *testing.T, name string, libCached bool, k int, gaps map[string]bool) (reached bool, at string) {
	b := storetest.New(t)
	oldPkg(b, depOld)
	oldPkg(b, depNew)
	in := storetest.NewInstaller(b.Root, uint64(k+1))
	app := storetest.Archive{Ident: appIdent, Deps: []string{depOld, libIdent}, Payload: []string{"bin/app", "lib/libapp.so"}}
	lib := storetest.Archive{Ident: libIdent, Payload: []string{"lib/liblib.so", "lib/liblib.a"}}
	if err := in.Cache(app, 72*time.Hour); err != nil {
		t.Fatal(err)
	}
	if libCached {
		if err := in.Cache(lib, 72*time.Hour); err != nil {
			t.Fatal(err)
		}
	} else {
		in.Publish(lib)
	}
	in.Publish(storetest.Archive{Ident: depOld})

	hidden, held, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var hideOnce, heldOnce sync.Once
	var putApp func()
	n := -1 // points since Using
	in.At = func(p storetest.Point) error {
		switch {
		case putApp == nil && p.Step == storetest.StepUsing && p.Ident == depOld:
			// Both archives look as old as they are (a test cannot
			// age a ctime): out of sight while the run plans.
			putApp = moveAside(t, in.ArchivePath(appIdent))
			putLib := func() {}
			if libCached {
				putLib = moveAside(t, in.ArchivePath(libIdent))
			}
			go func() {
				defer close(ended)
				runGC(t, b.Root, 0, 20*time.Millisecond, func(e retention.PhaseEvent) {
					if e.Phase == retention.PhaseSettle {
						hideOnce.Do(func() { close(hidden) })
						<-held // the last check comes at the k-th point
					}
				})
				hideOnce.Do(func() { close(hidden) })
				heldOnce.Do(func() { close(held) })
			}()
			<-hidden
			putApp()
			putLib()
			n = 0
		case n >= 0 && !reached:
			if n++; n-1 != k {
				return nil
			}
			reached, at = true, string(p.Step)+" "+p.Ident
			if p.Step == storetest.StepUnpacking {
				at += fmt.Sprintf(" %d/%d", p.Done, p.Total)
			}
			// Out of sight again while the last check looks (each was
			// read already, and is back before it is read again).
			putApp = moveAside(t, in.ArchivePath(appIdent))
			putLib := func() {}
			if _, err := os.Stat(in.ArchivePath(libIdent)); err == nil && libCached {
				putLib = moveAside(t, in.ArchivePath(libIdent))
			}
			heldOnce.Do(func() { close(held) })
			<-ended
			putApp()
			putLib()
		}
		return nil
	}
	err := in.Install(appIdent)
	if putApp == nil {
		t.Fatalf("%s: never found %s Using", name, depOld)
	}
	heldOnce.Do(func() { close(held) }) // fewer points than k
	<-ended
	putApp()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !reached || gaps[at] {
		return reached, at
	}
	if !in.Installed(depOld) {
		t.Errorf("%s: the run's last check at %s deleted %s, which app's install found Using", name, at, depOld)
	}
	requireWhole(t, b.Root)
	return reached, at
}

package watch_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/watch"
)

// Example purges core/redis once a third release of it is installed, as
// `hab pkg install` installs it, keeping the newest two.
func Example() {
	root, _ := os.MkdirTemp("", "watch-example")
	defer os.RemoveAll(root)
	s, _ := pkgstoretest.New(root)
	s.Add(pkgstoretest.Release{Ident: "core/redis/6.2.5/20200101000000", ModTime: old},
		pkgstoretest.Release{Ident: "core/redis/6.2.6/20200201000000", ModTime: old})
	s.Spec("redis", "core/redis") // a loaded service

	store, err := pkgstore.Open(root)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started, done := make(chan struct{}), make(chan struct{})
	purged := make(chan watch.Purge, 1)
	go func() {
		defer close(done)
		watch.Run(ctx, watch.Options{
			Store:     store,
			Policy:    retention.Policy{KeepLatest: 2, MinAge: retention.NoMinAge},
			Delay:     200 * time.Millisecond,
			NoHistory: true,
			OnStart:   func() { close(started) },
			OnPurge: func(p watch.Purge) {
				if p.Trigger != watch.TriggerStart { // the purge at start is not this example's
					purged <- p
				}
			},
		})
	}()
	<-started // from here on, a new release is seen

	in := storetest.NewInstaller(root, 1)
	in.Publish(storetest.Archive{Ident: "core/redis/7.0.1/20260101000000"})
	if err := in.Install("core/redis/7.0.1/20260101000000"); err != nil {
		fmt.Println(err)
		return
	}
	// The Supervisor restarts the service into it: its PID file, naming
	// a live process (here, this one), is renamed into place.
	if _, err := storetest.WritePIDFile(root, "redis", os.Getpid()); err != nil {
		fmt.Println(err)
		return
	}
	p := <-purged
	cancel()
	<-done
	fmt.Printf("%s purged (trigger %s): %d removed\n", p.Package, p.Trigger, p.Result.Removed)
	for _, d := range p.Plan.Removals() {
		fmt.Println("removed", d.Release.Ident, "-", d.Reasons[0].Text)
	}
	// Output:
	// core/redis purged (trigger load): 1 removed
	// removed core/redis/6.2.5/20200101000000 - not among the newest 2 of core/redis, not protected, and no kept release needs it
}

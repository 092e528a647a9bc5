package watch

import (
	"context"
	"sync"

	"github.com/hab-gc/hab-gc/internal/provenance"
)

// recordInstalls records which program installs each release until ctx
// ends; wait waits for it.
func recordInstalls(ctx context.Context, o Options) (wait func()) {
	log := o.log()
	pw, err := provenance.Watch(o.Store.FSRoot())
	if err != nil {
		// It matters to the operator only when the policy asks for it.
		level, msg := log.Debug, "who installs each release is not recorded"
		if o.Policy.OnlySupervisorInstalled {
			level, msg = log.Warn, msg+": every release installed from now on counts as installed by an unknown program, and only-supervisor-installed keeps it"
		}
		level(msg, "error", err.Error())
		return func() {}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		err := pw.Run(ctx, func(r provenance.Record) {
			if err := provenance.Append(ctx, o.Store.FSRoot(), r); err != nil {
				log.Error("recording who installed a release", "release", r.Ident, "installed_by", r.By, "error", err.Error())
				return
			}
			log.Debug("release installed", "release", r.Ident, "installed_by", r.By, "pid", r.PID)
		})
		if err != nil {
			log.Error("who installs each release is no longer recorded", "error", err.Error())
		}
	})
	return wg.Wait
}

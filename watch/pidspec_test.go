package watch_test

import (
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/watch"
)

// TestPIDFileReadBeforeSpec: `hab svc load` writes the spec, then the
// Supervisor starts the service and writes its PID file
// (components/sup/src/manager/service/supervisor.rs create_pidfile). A
// watch busy elsewhere may read the PID file before the spec's event
// (here: the PID file is there when watch starts, the spec comes after);
// the start is still the Supervisor's purge of the service.
func TestPIDFileReadBeforeSpec(t *testing.T) {
	t.Parallel()
	b := storetest.New(t).Old("core/redis/6.2.5/20200101000000", "core/redis/6.2.6/20200201000000", "core/redis/7.0.1/20260101000000")
	restart(t, b.Root, "redis")
	w := start(t, b.Root, watch.Options{})
	b.Spec("redis", "core/redis")
	p := w.next(t, 20*time.Second)
	if p.Err != nil || p.Package.String() != "core/redis" || p.Trigger != watch.TriggerLoad {
		t.Fatalf("purge of %s (%s): %v; want core/redis's at its load", p.Package, p.Trigger, p.Err)
	}
	installed(t, b, map[string]bool{"core/redis/6.2.5/20200101000000": false, "core/redis/7.0.1/20260101000000": true})
}

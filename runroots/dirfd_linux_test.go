package runroots_test

import (
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/runroots"
)

// TestScanOpenDirectory: a process whose only hold on a release is an
// open descriptor of one of its directories (no working directory there,
// nothing mapped, no file open) uses the release, seen in /proc/PID/fd.
func TestScanOpenDirectory(t *testing.T) {
	t.Parallel()
	b := appStore(t)
	p := proctest.Start(t, proctest.Open, b.PkgPath(oldApp)+"/share")
	for _, u := range usesOf(t, b.Root, p.PID()) {
		if u.Kind == runroots.KindFD && u.Ident.String() == oldApp && strings.HasSuffix(u.String(), "has share open") {
			return
		}
	}
	t.Fatalf("uses of process %d: %+v; want it to have share of %s open", p.PID(), usesOf(t, b.Root, p.PID()), oldApp)
}

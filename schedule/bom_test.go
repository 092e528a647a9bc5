package schedule_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestDefinitionWithBOM: a definition file saved with a
// UTF-8 byte order mark (Windows editors) is read as without one; its
// jobs run. Before, it was refused and its jobs never ran.
func TestDefinitionWithBOM(t *testing.T) {
	e := newEnv(t)
	e.write("a", "\xEF\xBB\xBF"+prune(e.store(), "17 * * * *"))
	defs, errs := schedule.LoadDir(e.dir)
	if len(errs) > 0 || len(defs) != 1 {
		t.Fatalf("a definition with a BOM: %v %+v", errs, defs)
	}
}

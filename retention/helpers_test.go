package retention_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

func itoa(n int) string { return strconv.Itoa(n) }

// passAsNobody runs the test binary bin's test named test as nobody
// (asNobody), in dir, with the variable env set to dir, and fails unless
// that test ran and passed.
func passAsNobody(t *testing.T, bin, test, env, dir string) {
	t.Helper()
	cmd := exec.Command(bin, "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+dir)
	cmd.Dir = dir
	asNobody(t, cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("child did not run the check:\n%s", out)
	}
}

// openPlan opens the store under root until the test ends and plans it
// with pol at `at` (retention.PlanStore with the scan options), failing
// the test on an error.
func openPlan(t testing.TB, root string, pol retention.Policy, at time.Time, scan pkgstore.Options) (*pkgstore.Store, *retention.Plan) {
	t.Helper()
	s, err := pkgstore.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p, err := retention.PlanStore(context.Background(), s, pol, at, scan)
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

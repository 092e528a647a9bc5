package testtool_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

const childEnv = "TESTTOOL_CHILD"

// TestNeed runs a test that needs a program nobody has, in a child test
// binary, with and without CI=true: it must skip outside CI and fail in it;
// and a program that exists is found.
func TestNeed(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		testtool.Need(t, "hab-gc-no-such-program", "nothing")
		t.Fatal("Need returned for a missing program")
	}
	if p := testtool.Need(t, "sh", "dash"); p == "" {
		t.Fatal("Need found no sh")
	}
	for _, tc := range []struct {
		ci       string
		wantFail bool
		want     string
	}{
		{"", false, "--- SKIP: TestNeed"},
		{"false", false, "--- SKIP: TestNeed"},
		{"true", true, "--- FAIL: TestNeed"},
	} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestNeed$", "-test.v")
			cmd.Env = append(os.Environ(), childEnv+"=1", "CI="+tc.ci)
			out, err := cmd.CombinedOutput()
			if (err != nil) != tc.wantFail || !strings.Contains(string(out), tc.want) ||
				!strings.Contains(string(out), "hab-gc-no-such-program is not installed") {
				t.Fatalf("err %v, want failure %v and %q:\n%s", err, tc.wantFail, tc.want, out)
			}
		})
	}
}

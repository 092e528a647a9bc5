package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const childEnv = "TESTSUMMARY_CHILD"

// TestChild is the test binary's own sample: a pass, a skip with a reason,
// a failure, run only as a child of TestSummarizeRealGoTest.
func TestChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		return // a sample for TestSummarizeRealGoTest, not a test of its own
	}
	t.Run("passes", func(t *testing.T) {})
	t.Run("skips", func(t *testing.T) { t.Skip("needs a thing that is missing") })
	t.Run("fails", func(t *testing.T) { t.Error("this failure is shown") })
}

// TestSummarizeRealGoTest feeds summarize what test2json makes of a real
// test run (this binary's TestChild) and checks the counts, the skip list
// with its reason and the failing test's output.
func TestSummarizeRealGoTest(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		return
	}
	cmd := exec.Command("go", "tool", "test2json", "-t", "-p", "example/pkg", os.Args[0], "-test.run=^TestChild$", "-test.v=test2json")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	js, _ := cmd.Output() // the child fails on purpose
	if len(js) == 0 {
		t.Fatal("test2json printed nothing")
	}
	var out bytes.Buffer
	c, err := summarize(bytes.NewReader(append([]byte("go: a plain line\n"), js...)), &out)
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	// TestChild itself fails (its subtest did): 2 failures, 1 pass, 1 skip.
	if c.passed != 1 || c.failed != 2 || c.skipped != 1 {
		t.Errorf("counts %+v\n%s", c, got)
	}
	for _, want := range []string{
		"go: a plain line",
		"this failure is shown",
		"skipped tests (1):",
		"example/pkg TestChild/skips:",
		"needs a thing that is missing",
		"1 passed, 2 failed, 1 skipped",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "=== RUN") {
		t.Errorf("summary shows passing tests' framing:\n%s", got)
	}
}

package docs_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCIRunsTheReadmeTestCommand: .ci/run runs the
// README's test command as written, and GOFLAGS adds nothing to it but
// -json, which internal/testsummary reads to list the skipped tests. Any
// other flag (a -timeout, a -count) would make CI's run differ from the
// one a developer runs. -json alone still gives CI's run a test-cache key
// of its own (go passes it to the test binary as -test.v=test2json), so a
// second .ci/run, or `go test -race -json ./...`, is served from the cache,
// but a plain `go test -race ./...` is not.
func TestCIRunsTheReadmeTestCommand(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	// The set-up block's second command is the test command.
	setup := regexp.MustCompile("(?s)## Set-up\n.*?```sh\n(.*?)```").FindSubmatch(readme)
	if setup == nil {
		t.Fatal("README.md has no ```sh block under ## Set-up")
	}
	cmds := strings.Split(strings.TrimSpace(string(setup[1])), "\n")
	if len(cmds) != 2 || !strings.HasPrefix(cmds[1], "go test ") {
		t.Fatalf("README's set-up block is not two commands, the second `go test`: %q", cmds)
	}
	want := cmds[1]

	var tests, flags []string
	for _, line := range strings.Split(string(ci), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "go test") {
			tests = append(tests, strings.TrimSpace(strings.SplitN(line, "|", 2)[0]))
		}
		if m := regexp.MustCompile(`GOFLAGS="\$\{GOFLAGS:\+\$GOFLAGS \}([^"]*)"`).FindStringSubmatch(line); m != nil {
			flags = append(flags, strings.Fields(m[1])...)
		} else if strings.Contains(line, "GOFLAGS") {
			t.Errorf(".ci/run sets GOFLAGS in a way this test cannot read: %q", line)
		}
	}
	if len(tests) != 1 || tests[0] != want {
		t.Errorf(".ci/run runs %q, want exactly the README's %q", tests, want)
	}
	for _, f := range flags {
		if f != "-json" {
			t.Errorf(".ci/run adds %s to the README's test command through GOFLAGS: only -json may be added", f)
		}
	}
}

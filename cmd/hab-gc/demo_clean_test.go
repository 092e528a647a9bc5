package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's commands on the demo store shipped in the
// clone (check takes the store's lock, creating its lock file) leave no
// untracked file in the clone: git status stays clean.
func TestDemoCommandsLeaveCloneClean(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git:", err)
	}
	demo := filepath.Join("..", "..", "testdata", "demo")
	if err := exec.Command("git", "-C", demo, "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skip("not a git clone:", err)
	}
	for _, argv := range [][]string{
		{"check", "--fs-root", demo},
		{"run", "--dry-run", "--keep-latest=1", "--min-age=none", "--fs-root", demo},
	} {
		var stdout, stderr bytes.Buffer
		if code := execute(argv, &stdout, &stderr, noEnv); code != exitOK {
			t.Fatalf("%v: exit %d: %s", argv, code, stderr.String())
		}
		out, err := exec.Command("git", "-C", demo, "status", "--porcelain", "--untracked-files=all", ".").Output()
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.TrimSpace(string(out)); s != "" {
			t.Errorf("after hab-gc %s, git status shows:\n%s", strings.Join(argv, " "), s)
		}
	}
}

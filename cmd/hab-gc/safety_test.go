package main

import (
	"os"
	"strings"
	"testing"
)

// readmeSafety returns the README's "Safety model" section as plain text:
// markdown emphasis and code marks dropped.
func readmeSafety(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Safety model\n")
	if !ok {
		t.Fatal(`README.md has no "## Safety model" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	sec = strings.NewReplacer("**", "", "`", "").Replace(sec)
	return strings.TrimSpace(sec) + "\n"
}

// TestSafetyTopicUpToDate keeps `hab-gc safety` (and the man page) equal to
// the README's safety model.
func TestSafetyTopicUpToDate(t *testing.T) {
	want := readmeSafety(t)
	if *update {
		if err := os.WriteFile("safety.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if safetyModel != want {
		t.Fatal("cmd/hab-gc/safety.txt differs from the README's safety model (run go test ./cmd/hab-gc -run Safety -update)")
	}
}

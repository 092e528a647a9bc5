package main

import (
	"bytes"
	"strings"
	"testing"
)

// --pace takes auto, off or a latency up to 10s; anything else is a usage
// error (exit 2) naming the setting. A dry run reads it too.
func TestPaceSetting(t *testing.T) {
	t.Parallel()
	root := hostStore(t).Root
	tests := []struct {
		value string
		exit  int
		why   string
	}{
		{"auto", 0, ""},
		{"AUTO", 0, ""},
		{"off", 0, ""},
		{"5ms", 0, ""},
		{"10s", 0, ""},
		{"0", 2, "a latency of 0 would pace everything to a halt"},
		{"0s", 2, "say off for full speed"},
		{"-1ms", 2, "cannot be negative"},
		{"11s", 2, "over 10s is never reached"},
		{"8760h", 2, "over 10s is never reached"},
		{"1y", 2, "must be auto, off, or the latency"},
		{"5", 2, "must be auto, off, or the latency"},
		{"fast", 2, "must be auto, off, or the latency"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := execute([]string{"run", "--fs-root", root, "--keep-latest=1", "--dry-run", "--pace=" + tt.value}, &out, &errb, noEnv)
		if code != tt.exit {
			t.Errorf("--pace=%s: exit %d, want %d: %s", tt.value, code, tt.exit, errb.String())
			continue
		}
		if tt.exit != 0 && (!strings.Contains(errb.String(), `invalid pace "`+tt.value+`" (from flag --pace)`) || !strings.Contains(errb.String(), tt.why)) {
			t.Errorf("--pace=%s: %q does not name the setting and say %q", tt.value, errb.String(), tt.why)
		}
	}
}

package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command's --help, written where it is not a terminal, is laid out
// in 80 columns: no line wider (there is no word too long to break), and
// the root help's first paragraph filled evenly (each line but the last
// takes words until the next would not fit).
func TestHelpFitsEightyColumns(t *testing.T) {
	t.Parallel()
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(newRootCmd(io.Discard, io.Discard, noEnv), nil)
	for _, path := range paths {
		t.Run(strings.Join(append([]string{"hab-gc"}, path...), " "), func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			if code := execute(append(path, "--help"), &out, &out, noEnv); code != exitOK {
				t.Fatalf("exit %d: %s", code, out.String())
			}
			lines := strings.Split(out.String(), "\n")
			for i, l := range lines {
				if n := textWidth(l); n > 80 {
					t.Errorf("line %d is %d columns wide: %q", i+1, n, l)
				}
			}
			if len(path) > 0 {
				return
			}
			for i := 0; lines[i+1] != ""; i++ {
				next := strings.Fields(lines[i+1])[0]
				if textWidth(lines[i])+1+textWidth(next) <= 80 {
					t.Errorf("line %d ends early: %q, then %q", i+1, lines[i], next)
				}
			}
		})
	}
}

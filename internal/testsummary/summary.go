package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output events
}

type counts struct {
	passed, failed, skipped, pkgFailed int
}

// summarize reads events from r and writes the summary to w.
func summarize(r io.Reader, w io.Writer) (counts, error) {
	var c counts
	type key struct{ pkg, test string }
	held := map[key][]string{} // a running test's output, printed if it fails
	var skips []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line) // not an event: go's own messages
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(w, e.Output)
		case "output":
			if e.Test == "" {
				if e.Output != "PASS\n" { // -v's; plain go test prints only the ok line
					fmt.Fprint(w, e.Output) // the package's ok/FAIL lines, panics, prints from TestMain
				}
			} else {
				held[k] = append(held[k], e.Output)
			}
		case "pass":
			if e.Test != "" {
				c.passed++
			}
			delete(held, k)
		case "skip":
			if e.Test != "" {
				c.skipped++
				skips = append(skips, fmt.Sprintf("%s %s: %s", e.Package, e.Test, reason(held[k])))
			}
			delete(held, k)
		case "fail":
			if e.Test == "" {
				c.pkgFailed++
				break
			}
			c.failed++
			for _, l := range held[k] {
				if !strings.HasPrefix(l, "=== ") { // as plain go test: no RUN, PAUSE, CONT framing
					fmt.Fprint(w, l)
				}
			}
			delete(held, k)
		}
	}
	if err := sc.Err(); err != nil {
		return c, err
	}
	sort.Strings(skips)
	if len(skips) > 0 {
		fmt.Fprintf(w, "\nskipped tests (%d):\n", len(skips))
		for _, s := range skips {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped\n", c.passed, c.failed, c.skipped)
	return c, nil
}

// reason is what a skipped test said: its output without the "=== RUN",
// "--- SKIP" framing, on one line.
func reason(out []string) string {
	var parts []string
	for _, l := range out {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}

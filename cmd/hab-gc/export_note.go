package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// printExported lists the unit files schedule export wrote, then the
// systemctl line that starts their timers: units in a directory do nothing
// until enabled (docs/scheduling.md).
func printExported(w io.Writer, written []string) {
	var timers []string
	for _, f := range written {
		fmt.Fprintln(w, f)
		if strings.HasSuffix(f, ".timer") {
			timers = append(timers, filepath.Base(f))
		}
	}
	if len(timers) > 0 {
		fmt.Fprintf(w, "systemctl daemon-reload && systemctl enable --now %s\n", strings.Join(timers, " "))
	}
}

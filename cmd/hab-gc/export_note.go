package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// printExported lists the unit files schedule export wrote, then the
// systemctl lines that stop the timers of the units it removed (jobs that
// are gone: systemd runs a timer it loaded until told) and start the
// written ones: units in a directory do nothing until enabled
// (docs/scheduling.md).
func printExported(w io.Writer, written, removed []string) {
	var timers []string
	for _, f := range written {
		fmt.Fprintln(w, f)
		if strings.HasSuffix(f, ".timer") {
			timers = append(timers, filepath.Base(f))
		}
	}
	var gone []string
	for _, n := range removed {
		if strings.HasSuffix(n, ".timer") {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		fmt.Fprintf(w, "systemctl disable --now %s\n", strings.Join(gone, " "))
	}
	if len(timers) > 0 {
		fmt.Fprintf(w, "systemctl daemon-reload && systemctl enable --now %s\n", strings.Join(timers, " "))
	}
}

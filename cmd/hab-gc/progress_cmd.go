package main

import "github.com/spf13/cobra"

// progressFor is the progress display of a long command (run, list, why,
// check): on stderr when it is a terminal (newProgress), never with
// --json, whose readers want stderr's lines alone.
func (a *app) progressFor(cmd *cobra.Command) *progress {
	if a.wantJSON(cmd) {
		return &progress{w: a.stderr}
	}
	return newProgress(a.stderr)
}

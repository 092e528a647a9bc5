package main

import (
	"log/slog"

	"github.com/spf13/cobra"
)

// addVerboseLogFlag adds --verbose to the commands that log (watch,
// daemon): each run or purge is one INFO record; --verbose adds its
// details (phases, each release removed or kept) at DEBUG.
func addVerboseLogFlag(cmd *cobra.Command) {
	cmd.Flags().BoolP("verbose", "v", false, "log each purge's or job's details too (DEBUG records: its phases, each release removed or kept), not only its one INFO record")
}

// logOptions are the log handler's options for cmd's --verbose.
func logOptions(cmd *cobra.Command) *slog.HandlerOptions {
	if verbose, _ := cmd.Flags().GetBool("verbose"); verbose {
		return &slog.HandlerOptions{Level: slog.LevelDebug}
	}
	return nil
}

package main

import (
	"github.com/spf13/cobra"
)

// scheduleCmd is the schedule command group: list, next and export.
func (a *app) scheduleCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule",
		Short: "Inspect and export scheduled jobs",
	}
	cmd.AddCommand(a.scheduleListCmd(), a.scheduleNextCmd(), a.scheduleExportCmd())
	return cmd
}

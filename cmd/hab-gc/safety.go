package main

import (
	_ "embed"
	"fmt"

	"github.com/spf13/cobra"
)

// safetyModel is the README's "Safety model" section as plain text,
// written by `go test ./cmd/hab-gc -run Safety -update`.
//
//go:embed safety.txt
var safetyModel string

// safetyTopic is `hab-gc safety`: the safety model, in the help and in the
// man pages and markdown that `hab-gc docs` writes.
func safetyTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "safety",
		Short: "Print the safety model: what hab-gc guarantees before it deletes anything, and how",
		Long:  "The safety model: what hab-gc guarantees before it deletes anything, and how.\n\n" + safetyModel,
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), safetyModel)
			return err
		},
	}
}

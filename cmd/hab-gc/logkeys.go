package main

import (
	"context"
	"log/slog"

	"github.com/spf13/cobra"
)

// uniqueKeys drops an attribute whose key the logger or the record has
// already: parsers read JSON with a key twice differently.
func uniqueKeys(h slog.Handler) slog.Handler { return &uniqueHandler{h: h, keys: map[string]bool{}} }

type uniqueHandler struct {
	h    slog.Handler
	keys map[string]bool // top-level keys the logger carries
}

func (u *uniqueHandler) Enabled(ctx context.Context, l slog.Level) bool { return u.h.Enabled(ctx, l) }

func (u *uniqueHandler) Handle(ctx context.Context, r slog.Record) error {
	seen := map[string]bool{}
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if !u.keys[a.Key] && !seen[a.Key] {
			seen[a.Key] = true
			out.AddAttrs(a)
		}
		return true
	})
	return u.h.Handle(ctx, out)
}

func (u *uniqueHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	keys := make(map[string]bool, len(u.keys)+len(attrs))
	for k := range u.keys {
		keys[k] = true
	}
	var keep []slog.Attr
	for _, a := range attrs {
		if !keys[a.Key] {
			keys[a.Key] = true
			keep = append(keep, a)
		}
	}
	return &uniqueHandler{h: u.h.WithAttrs(keep), keys: keys}
}

func (u *uniqueHandler) WithGroup(name string) slog.Handler {
	return &uniqueHandler{h: u.h.WithGroup(name), keys: map[string]bool{}}
}

// addVerboseLogFlag adds --verbose (DEBUG records) to watch and daemon.
func addVerboseLogFlag(cmd *cobra.Command) {
	cmd.Flags().BoolP("verbose", "v", false, "log each purge's or job's details too (DEBUG records: its phases, each release removed or kept), not only its one INFO record")
}

func logOptions(cmd *cobra.Command) *slog.HandlerOptions {
	if verbose, _ := cmd.Flags().GetBool("verbose"); verbose {
		return &slog.HandlerOptions{Level: slog.LevelDebug}
	}
	return nil
}

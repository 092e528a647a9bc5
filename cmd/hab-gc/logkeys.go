package main

import (
	"context"
	"log/slog"
)

// uniqueKeys wraps a log handler so that a record never repeats a key:
// an attribute whose key the logger already carries (With) or the record
// already has is dropped (the first stays). The daemon's logger for a
// store's watch carries "store", and the watch logs "store" again; JSON
// with a key twice is read differently by different parsers.
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

// WithGroup starts a group: keys inside it are new.
func (u *uniqueHandler) WithGroup(name string) slog.Handler {
	return &uniqueHandler{h: u.h.WithGroup(name), keys: map[string]bool{}}
}

//go:build !linux

package provenance

import (
	"context"
	"errors"
)

// Watcher needs fanotify: Watch fails at once on this system.
type Watcher struct{}

// Watch fails: nothing tells who installs a release on this system.
func Watch(fsRoot string) (*Watcher, error) { return nil, errors.ErrUnsupported }

// Run returns at once.
func (w *Watcher) Run(ctx context.Context, found func(Record)) error { return errors.ErrUnsupported }

// Append is Watch's: nothing records installs on this system.
func Append(ctx context.Context, fsRoot string, r Record) error { return errors.ErrUnsupported }

//go:build unix || windows

package history

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// journal_unix.go and journal_windows.go supply openDir, closeDir and
// appendOnce.

func (j Journal) appendData(ctx context.Context, data []byte) error {
	d, err := j.openDir()
	if err != nil {
		return err
	}
	defer closeDir(d)
	for range 10 { // a concurrent rotation makes us reopen
		done, err := j.appendOnce(ctx, d, data)
		if done || err != nil {
			return err
		}
	}
	return fmt.Errorf("history: %s kept being rotated under us", filepath.Join(j.Dir, fileName))
}

func (j Journal) relDir() (string, error) {
	rel, err := filepath.Rel(j.FSRoot, j.Dir)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("history: %s is not below the FS root %s", j.Dir, j.FSRoot)
	}
	return rel, nil
}

// waitLock polls try (one non-blocking attempt) for at most timeout and
// until ctx ends, trying once even then.
func waitLock(ctx context.Context, timeout time.Duration, try func() (locked bool, err error)) error {
	start := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if locked, err := try(); locked || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (gave up after %s: %v)", ErrBusy, time.Since(start).Round(time.Millisecond), ctx.Err())
		case <-deadline.C:
			return fmt.Errorf("%w (held past the %s wait)", ErrBusy, timeout)
		case <-tick.C:
		}
	}
}

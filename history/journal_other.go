//go:build !unix && !windows

package history

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
)

// appendData is only implemented on Unix and Windows; Read works everywhere.
func (j Journal) appendData(ctx context.Context, data []byte) error {
	return fmt.Errorf("history: append to %s: %w", filepath.Join(j.Dir, fileName), errors.ErrUnsupported)
}

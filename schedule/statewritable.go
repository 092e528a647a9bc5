package schedule

import (
	"fmt"
	"os"
	"path/filepath"
)

// StateWritable reports whether this process could write the state file
// at path, as the daemon does (schedule list warns when it could not): the
// file itself when it exists, and its directory, or the nearest parent of
// it that exists (the daemon makes the rest), must be writable for the
// real user (access(2) with W_OK). The error names the file or directory
// that is not. It is only implemented on Unix: elsewhere it fails with an
// error wrapping errors.ErrUnsupported.
func StateWritable(path string) error {
	if _, err := os.Lstat(path); err == nil {
		if err := writable(path); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	dir := filepath.Dir(path)
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		if dir == filepath.Dir(dir) {
			break
		}
		dir = filepath.Dir(dir)
	}
	if err := writable(dir); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	return nil
}

package safeio_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestNotDirSaysSo: a regular file where a directory is opened is an
// error wrapping syscall.ENOTDIR that says so in words, on every system:
// on Windows syscall.ENOTDIR is ERROR_PATH_NOT_FOUND, whose own text
// ("The system cannot find the path specified") said of a file that is
// there read as nonsense.
func TestNotDirSaysSo(t *testing.T) {
	file := filepath.Join(testtool.TempDir(t), "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func() error{
		"OpenRoot": func() error {
			r, err := safeio.OpenRoot(file)
			if err == nil {
				r.Close()
			}
			return err
		},
		"ReadDir": func() error { _, err := safeio.ReadDir(file); return err },
	} {
		err := open()
		if !errors.Is(err, syscall.ENOTDIR) || !strings.Contains(err.Error(), "not a directory: it is a regular file") {
			t.Errorf("%s of a regular file: %v; want ENOTDIR saying it is not a directory but a regular file", name, err)
		}
	}
}

//go:build unix

package artifactcache

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Open never blocks on a FIFO, at the FS root or at any level of the
// cache: it fails at once naming it. Before, a FIFO as
// the FS root hung Open in os.OpenRoot's open(2).
func TestOpenNeverBlocksOnAFIFO(t *testing.T) {
	for _, at := range []string{"", "hab", "hab/cache", "hab/cache/artifacts"} {
		t.Run("/"+at, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "hab/cache/artifacts"), 0o755); err != nil {
				t.Fatal(err)
			}
			fifo := filepath.Join(root, at)
			if at == "" {
				fifo = filepath.Join(root, "root")
				root = fifo
			} else if err := os.RemoveAll(fifo); err != nil {
				t.Fatal(err)
			}
			if err := unix.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			done := make(chan error, 1)
			go func() {
				c, err := Open(root)
				if err == nil {
					c.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				name := at
				if at == "" {
					name = root
				}
				if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "named pipe") {
					t.Fatalf("Open: %v; want an error naming %s as a named pipe", err, name)
				}
				if at != "" && !errors.Is(err, ErrNoCache) {
					t.Errorf("Open: %v; want ErrNoCache", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Open still running after 10s: blocked on the FIFO")
			}
		})
	}
}

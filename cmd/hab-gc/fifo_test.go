//go:build unix

package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// A FIFO where hab-gc reads its configuration is a usage error naming the
// file, at once; hab-gc never waits for a writer.
func TestConfigFIFONeverBlocks(t *testing.T) {
	cases := []struct {
		name string
		args func(root, fifo string) []string
		at   string // the FIFO, relative to the FS root
	}{
		{"default config file", func(root, _ string) []string { return []string{"check", "--fs-root", root} }, "hab/etc/hab-gc.toml"},
		{"--config", func(root, fifo string) []string { return []string{"check", "--fs-root", root, "--config", fifo} }, "elsewhere.toml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg("core/a/1/20200101000000").Mkdir("hab/etc")
			fifo := filepath.Join(b.Root, c.at)
			if err := unix.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() {
				done <- execute(c.args(b.Root, fifo), &stdout, &stderr, func(string) (string, bool) { return "", false })
			}()
			select {
			case code := <-done:
				if code != exitUsage || !strings.Contains(stderr.String(), fifo) || !strings.Contains(stderr.String(), "named pipe") {
					t.Fatalf("exit %d, stderr %q: want exit %d naming %s as a named pipe", code, stderr.String(), exitUsage, fifo)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("still running after 10s: hung on a FIFO")
			}
		})
	}
}

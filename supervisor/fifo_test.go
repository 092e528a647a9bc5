//go:build unix

package supervisor_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/tlstest"
	"github.com/hab-gc/hab-gc/supervisor"
)

// A FIFO given as a TLS file is an error naming it, at once:
// LoadTLS never waits for a writer. Before, os.ReadFile hung in
// open(2).
func TestLoadTLSNeverBlocksOnAFIFO(t *testing.T) {
	p := tlstest.New(t)
	fifo := filepath.Join(t.TempDir(), "fifo.pem")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for name, files := range map[string]supervisor.TLSFiles{
		"CA":   {CACerts: fifo},
		"cert": {Cert: fifo, Key: p.ClientKey},
		"key":  {Cert: p.ClientCert, Key: fifo},
	} {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := supervisor.LoadTLS(files); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, supervisor.ErrTLS) || !strings.Contains(err.Error(), "fifo.pem") || !strings.Contains(err.Error(), "named pipe") {
					t.Fatalf("error %v; want ErrTLS naming fifo.pem as a named pipe", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("LoadTLS still running after 10s: blocked on the FIFO")
			}
		})
	}
}

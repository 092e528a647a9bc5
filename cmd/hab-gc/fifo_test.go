//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
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

// A FIFO anywhere hab-gc opens a path under the FS root never hangs a
// command (a FIFO at hab/pkgs hung run, list, check,
// graph and watch in target inference, deaf to SIGTERM). hab/pkgs a FIFO
// is an unusable store: exit 2 naming it as not a directory. Elsewhere
// the command returns promptly; an error names the path.
func TestStoreFIFONeverBlocks(t *testing.T) {
	t.Parallel()
	const rel = "core/a/2/20200101000000"
	commands := map[string][]string{
		"run --dry-run":                 {"run", "--dry-run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false"},
		"list":                          {"list", "--runtime-roots=false"},
		"check":                         {"check"},
		"graph":                         {"graph"},
		"watch":                         {"watch", "--keep-latest=1", "--runtime-roots=false"},
		"watch, the Supervisor's count": {"watch", "--runtime-roots=false"},
		"run":                           {"run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false"},
		"run --cache":                   {"run", "--dry-run", "--cache", "--keep-latest=1", "--min-age=none", "--runtime-roots=false"},
		"binlinks --dry-run":            {"binlinks", "--dry-run"},
		"binlinks":                      {"binlinks"},
	}
	cases := []struct {
		at       string // the FIFO, relative to the FS root
		commands []string
		code     int    // -1: any code, but an error names the FIFO
		says     string // what stderr says of it, besides its name
	}{
		{"hab/pkgs", []string{"run --dry-run", "list", "check", "graph", "watch", "run", "binlinks --dry-run", "binlinks"}, exitUsage, "not a directory"},
		{"hab/pkgs/" + pkgstore.LockFile, []string{"run", "check", "binlinks --dry-run", "binlinks"}, exitRefused, "named pipe"},
		{"hab/bin", []string{"binlinks --dry-run", "binlinks"}, -1, ""},
		{"hab/cache/artifacts", []string{"run --cache"}, -1, ""},
		{"hab/sup/default/specs/x.spec", []string{"run --dry-run", "list", "check"}, exitOK, ""},
		{"hab/launcher/PID", []string{"run --dry-run", "list", "check"}, exitOK, ""},
		{"hab/sup/default/config/sup.toml", []string{"watch, the Supervisor's count"}, exitRefused, "named pipe"},
		{"hab/studios", []string{"run --dry-run", "check"}, exitOK, ""},
		{"hab/pkgs/" + rel + "/TARGET", []string{"run --dry-run", "list", "graph"}, -1, ""},
	}
	for _, c := range cases {
		for _, name := range c.commands {
			t.Run(c.at+"/"+name, func(t *testing.T) {
				b := storetest.New(t)
				b.Pkg("core/a/1/20200101000000").Pkg(rel).Spec("a", "core/a").
					Pkg("chef/hab/1.6.0/20200101000000").Mkdir("hab/launcher").Mkdir("hab/cache").Mkdir("hab/sup/default/config")
				fifo := filepath.Join(b.Root, c.at)
				os.RemoveAll(fifo)
				if err := unix.Mkfifo(fifo, 0o644); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
				args := append(append([]string{}, commands[name]...), "--fs-root", b.Root)
				var stdout, stderr bytes.Buffer
				done := make(chan int, 1)
				go func() {
					done <- execute(args, &stdout, &stderr, func(string) (string, bool) { return "", false })
				}()
				select {
				case code := <-done:
					switch {
					case c.code >= 0 && code != c.code:
						t.Fatalf("exit %d, want %d; stderr %q", code, c.code, stderr.String())
					case code != exitOK && (!strings.Contains(stderr.String(), c.at) || !strings.Contains(stderr.String(), c.says)):
						t.Fatalf("exit %d, stderr %q: want it to name %s (%s)", code, stderr.String(), c.at, c.says)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("%v still running after 10s: hung on the FIFO at %s", args, c.at)
				}
			})
		}
	}
}

//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// complete runs the shell completion of argv (as cobra's scripts do) and
// returns the candidates (without descriptions) and the directive line.
func complete(t *testing.T, env map[string]string, argv ...string) ([]string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- execute(append([]string{"__complete"}, argv...), &out, &errb, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	}()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("__complete %v: exit %d, stderr %s", argv, code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("__complete %v: still running after 10s (blocked?)", argv)
	}
	var got []string
	directive := ""
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.HasPrefix(l, ":") {
			directive = l
			continue
		}
		got = append(got, strings.SplitN(l, "\t", 2)[0])
	}
	return got, directive
}

// TestIdentCompletion: why, list, run and history complete installed
// idents level by level (origin/, origin/name, version, release) from
// the store under --fs-root (or FS_ROOT), by listing directories only:
// no hidden directory, nothing that is not a directory, and a FIFO where
// a directory was expected gives nothing rather than blocking.
func TestIdentCompletion(t *testing.T) {
	b := storetest.New(t)
	b.Pkg("core/redis/6.2.5/20211101000000")
	b.Pkg("core/redis/6.2.6/20220601000000")
	b.Pkg("core/redis/6.2.6/20220501000000")
	b.Pkg("core/openssl/1.1.1k/20210401000000")
	b.Pkg("acme/webapp/1.0.0/20210501000000")
	b.Mkdir("hab/pkgs/core/redis/6.2.6/.hab-pkg-install-20240101000000abcdef")
	if err := syscall.Mkfifo(b.Path("hab/pkgs/fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b.Path("hab/pkgs/core"), b.Path("hab/pkgs/link")); err != nil {
		t.Fatal(err)
	}
	root := []string{"--fs-root", b.Root}
	for _, tc := range []struct {
		argv []string
		want []string
	}{
		{[]string{"why", ""}, []string{"acme/", "core/"}},
		{[]string{"why", "c"}, []string{"core/"}},
		{[]string{"list", "core/"}, []string{"core/openssl", "core/redis"}},
		{[]string{"run", "core/r"}, []string{"core/redis"}},
		{[]string{"history", "core/redis/"}, []string{"core/redis/6.2.5", "core/redis/6.2.6"}},
		{[]string{"why", "core/redis/6.2.6/"}, []string{"core/redis/6.2.6/20220501000000", "core/redis/6.2.6/20220601000000"}},
		{[]string{"list", "core/redis", "acme/w"}, []string{"acme/webapp"}},
		{[]string{"why", "core/redis", ""}, nil}, // one IDENT only
		{[]string{"history", "core/redis", ""}, nil},
		{[]string{"why", "fifo/"}, nil},
		{[]string{"why", "../"}, nil},
		{[]string{"why", "core/../"}, nil},
		{[]string{"why", "nope/"}, nil},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			argv := append(append(tc.argv[:1:1], root...), tc.argv[1:]...)
			got, directive := complete(t, nil, argv...)
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("completing %q: %q (%s); want %q", tc.argv, got, directive, tc.want)
			}
		})
	}
	// FS_ROOT as the store's root when --fs-root is not given.
	got, _ := complete(t, map[string]string{"FS_ROOT": b.Root}, "why", "core/redis/6.2.5/")
	if want := []string{"core/redis/6.2.5/20211101000000"}; !slices.Equal(got, want) {
		t.Errorf("with FS_ROOT: %q; want %q", got, want)
	}
	// A missing store: nothing, quickly.
	if got, _ := complete(t, nil, "why", "--fs-root", filepath.Join(b.Root, "none"), ""); len(got) != 0 {
		t.Errorf("no store: %q; want nothing", got)
	}
}

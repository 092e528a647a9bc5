package main

import (
	"runtime"
	"testing"
)

// TestHostFSRoot: with no fs_root named, the FS root is this machine's
// (/, or SYSTEMDRIVE\ on Windows: Habitat's C:\hab\pkgs), never FS_ROOT
// read a second time.
func TestHostFSRoot(t *testing.T) {
	env := map[string]string{"SYSTEMDRIVE": "D:", "FS_ROOT": "/ignored"}
	got := hostFSRoot(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	want := "/"
	if runtime.GOOS == "windows" {
		want = `D:\`
	}
	if got != want {
		t.Fatalf("hostFSRoot = %q, want %q", got, want)
	}
}

//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestBinlinkNameWithControlCharacter: binlinks repairs a link whose name
// holds a control character as any other: the one into a release
// uninstalled since points at the installed release that has the command,
// the one into a package with no release left is removed. The report may
// quote such a name; the file it changes is the one of that name.
func TestBinlinkNameWithControlCharacter(t *testing.T) {
	t.Parallel()
	const (
		relink = "cat\x01"
		remove = "ls\x01"
		newer  = "core/tool/2/20210101000000"
	)
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: newer, Files: map[string]string{
		"PATH":          "/hab/pkgs/" + newer + "/bin\n",
		"bin/" + relink: "#!/bin/sh\n",
	}})
	bin := filepath.Join(b.Root, "bin")
	noErr(t, os.Mkdir(bin, 0o755))
	noErr(t, os.Symlink("/hab/pkgs/core/tool/1/20200101000000/bin/"+relink, filepath.Join(bin, relink)))
	noErr(t, os.Symlink("/hab/pkgs/core/gone/1/20200101000000/bin/"+remove, filepath.Join(bin, remove)))

	code, out, errs := hab(t, nil, "binlinks", "--fs-root", b.Root)
	if code != 0 {
		t.Errorf("binlinks: exit %d\n%s%s", code, out, errs)
	}
	if got, err := os.Readlink(filepath.Join(bin, relink)); err != nil || got != "/hab/pkgs/"+newer+"/bin/"+relink {
		t.Errorf("bin/%q -> %q (%v), want it relinked into %s", relink, got, err, newer)
	}
	if _, err := os.Lstat(filepath.Join(bin, remove)); !os.IsNotExist(err) {
		t.Errorf("bin/%q into a package with no release installed is still there (%v)", remove, err)
	}
	entries, _ := os.ReadDir(bin)
	for _, e := range entries {
		if strings.Contains(e.Name(), `\x01`) {
			t.Errorf("a file named with the quoted form was made: %q", e.Name())
		}
	}
	if code, out, _ := hab(t, nil, "check", "--fs-root", b.Root); strings.Contains(out, "dangling-binlink") {
		t.Errorf("check after the repair (exit %d):\n%s", code, out)
	}
	if t.Failed() {
		t.Logf("binlinks said:\n%s%s", out, errs)
	}
}

package storetest_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestInstallerSequence checks the layout at every point of an install
// against Habitat's sequence (see storetest.Installer).
func TestInstallerSequence(t *testing.T) {
	root := t.TempDir()
	storetest.At(t, root).Pkg("core/glibc/2.35/20200101000000")
	in := storetest.NewInstaller(root, 1)
	const (
		glibc = "core/glibc/2.35/20200101000000"
		zlib  = "core/zlib/1.3/20210101000000"
		redis = "core/redis/7.0/20260101000000"
	)
	old := time.Date(2021, 5, 1, 0, 0, 0, 0, time.UTC)
	in.Publish(storetest.Archive{Ident: zlib, Deps: []string{glibc}, ModTime: old, Parents: true},
		storetest.Archive{Ident: redis, Deps: []string{zlib}, TDeps: []string{zlib, glibc}, Payload: []string{"bin/redis-server"}, MetaLast: true, ModTime: old})
	var steps []string
	in.At = func(p storetest.Point) error {
		steps = append(steps, string(p.Step)+" "+p.Ident)
		rel, _ := filepath.Rel(root, p.Path)
		switch p.Step {
		case storetest.StepDownloading:
			if !strings.HasPrefix(filepath.Base(p.Path), ".tmp") || len(filepath.Base(p.Path)) != 10 {
				t.Errorf("download to %s", rel)
			}
		case storetest.StepFetched:
			if rel != "hab/cache/artifacts/"+strings.ReplaceAll(p.Ident, "/", "-")+"-x86_64-linux.hart" {
				t.Errorf("fetched to %s", rel)
			}
		case storetest.StepDepsChecked:
			if _, err := os.Stat(filepath.Join(root, "hab/pkgs/core/zlib")); err == nil {
				t.Error("zlib's directories exist before any unpack")
			}
		case storetest.StepTempDir:
			dir, base := filepath.Split(rel)
			rv := p.Ident[strings.LastIndex(p.Ident, "/")+1:]
			if dir != "hab/pkgs/"+p.Ident[:strings.LastIndex(p.Ident, "/")]+"/" || !strings.HasPrefix(base, ".hab-pkg-install-"+rv) ||
				len(base) != len(".hab-pkg-install-")+len(rv)+6 {
				t.Errorf("temp dir %s", rel)
			}
		case storetest.StepUnpacked:
			fi, err := os.Stat(filepath.Join(p.Path, "hab/pkgs", p.Ident, "IDENT"))
			if err != nil || !fi.ModTime().Equal(old) {
				t.Errorf("unpacked IDENT: %v %v", fi, err)
			}
			if fi, err := os.Stat(filepath.Join(p.Path, "hab/pkgs", p.Ident)); err != nil || !fi.ModTime().Equal(old) {
				t.Errorf("release directory's mtime: %v %v", fi, err)
			}
		case storetest.StepInstalled:
			if !in.Installed(p.Ident) {
				t.Errorf("%s not installed", p.Ident)
			}
			ents, _ := os.ReadDir(filepath.Dir(p.Path))
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), ".hab-pkg-install") {
					t.Errorf("temp dir %s left", e.Name())
				}
			}
		}
		return nil
	}
	if err := in.Install(redis); err != nil {
		t.Fatal(err)
	}
	var compact []string
	for _, s := range steps {
		if !strings.HasPrefix(s, "unpacking") {
			compact = append(compact, s)
		}
	}
	want := []string{
		"downloading " + redis, "fetched " + redis,
		"downloading " + zlib, "fetched " + zlib,
		"using " + glibc,
		"deps-checked " + redis,
		"temp-dir " + zlib, "unpacked " + zlib, "renamed " + zlib, "installed " + zlib,
		"temp-dir " + redis, "unpacked " + redis, "renamed " + redis, "installed " + redis,
	}
	if !slices.Equal(compact, want) {
		t.Fatalf("steps\n%s\nwant\n%s", strings.Join(compact, "\n"), strings.Join(want, "\n"))
	}
	steps = nil
	if err := in.Install(redis); err != nil || !slices.Equal(steps, []string{"using " + redis}) {
		t.Fatalf("second install: %v %q", err, steps)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "hab/pkgs", redis, "TDEPS")); string(b) != zlib+"\n"+glibc+"\n" {
		t.Fatalf("TDEPS %q", b)
	}
}

// TestArchiveEntries: Parents gives the 2016 fixture's shape.
func TestArchiveEntries(t *testing.T) {
	a := storetest.Archive{Ident: "happyhumans/possums/8.1.4/20160427165340", Parents: true, Payload: []string{"share/signme.dat"}}
	es, err := storetest.ReadHart(a.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name)
	}
	want := []string{"hab", "hab/pkgs", "hab/pkgs/happyhumans", "hab/pkgs/happyhumans/possums", "hab/pkgs/happyhumans/possums/8.1.4",
		"hab/pkgs/happyhumans/possums/8.1.4/20160427165340/"}
	if !slices.Equal(names[:6], want) || !es[0].IsDir() {
		t.Fatalf("entries %q", names)
	}
}

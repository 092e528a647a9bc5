package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// A run that finds what a killed run hid, with a spec
// loading the top of a chain, puts the chain back together, says so in
// its text and JSON reports (each leftover, what it was put back as and
// why) and exits 0; check then finds every dependency installed.
func TestRunPutsLeftoversBackTogether(t *testing.T) {
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	const app, mid, lib = "core/app/1.0/20200101000000", "core/mid/1.0/20200101000000", "core/lib/1.0/20200101000000"
	build := func(t *testing.T) *storetest.Builder {
		b := storetest.New(t)
		b.Add(storetest.Release{Ident: lib, ModTime: old}, storetest.Release{Ident: "core/lib/2.0/20210101000000", ModTime: old})
		b.Add(storetest.Release{Ident: mid, Deps: []string{lib}, ModTime: old})
		b.Add(storetest.Release{Ident: app, Deps: []string{mid}, ModTime: old})
		b.Spec("app", app)
		for _, id := range []string{app, mid, lib} { // hidden by a killed run
			orig := b.PkgPath(id)
			if err := os.Rename(orig, filepath.Join(filepath.Dir(orig), pkgstore.DebrisPrefix+"pending-"+filepath.Base(orig)+"-ABCDEFGHIJ")); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	args := func(b *storetest.Builder, more ...string) []string {
		return append([]string{"run", "--fs-root", b.Root, "--keep-latest=1", "--min-age=none", "--runtime-roots=false", "--allow-damaged", "--target", storetest.DefaultTarget}, more...)
	}
	t.Run("text", func(t *testing.T) {
		b := build(t)
		code, out, errs := hab(t, nil, args(b)...)
		if code != 0 {
			t.Fatalf("exit %d: %s\n%s", code, out, errs)
		}
		for _, id := range []string{app, mid, lib} {
			if !strings.Contains(out, ": kept: put back as "+id) {
				t.Errorf("the report does not say %s was put back:\n%s", id, out)
			}
		}
		// Each comes back for what the run's own policy says of it.
		if !strings.Contains(out, "put back as "+lib+": dependency of "+app) {
			t.Errorf("the report does not say why %s came back:\n%s", lib, out)
		}
		if code, out, _ := hab(t, nil, "check", "--fs-root", b.Root); strings.Contains(out, "dep-not-installed") {
			t.Errorf("check after the run (exit %d):\n%s", code, out)
		}
	})
	t.Run("json", func(t *testing.T) {
		b := build(t)
		code, out, errs := hab(t, nil, args(b, "--json")...)
		if code != 0 {
			t.Fatalf("exit %d: %s\n%s", code, out, errs)
		}
		var rep struct {
			Leftovers []struct{ Path, Status, Text string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		kept := map[string]string{}
		for _, l := range rep.Leftovers {
			if l.Status == "kept" {
				kept[strings.SplitN(l.Path, "/"+pkgstore.DebrisPrefix, 2)[0]] = l.Text
			}
		}
		for _, id := range []string{app, mid, lib} {
			vdir := id[:strings.LastIndexByte(id, '/')]
			if !strings.HasPrefix(kept[vdir], "put back as "+id+": ") {
				t.Errorf("%s: leftovers %+v", id, rep.Leftovers)
			}
		}
		for _, id := range []string{app, mid, lib} {
			if _, err := os.Stat(filepath.Join(b.PkgPath(id), "TARGET")); err != nil {
				t.Errorf("%s not put back: %v", id, err)
			}
		}
	})
}

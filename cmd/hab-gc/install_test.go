package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// findRelease returns the JSON object whose "ident" is ident, anywhere in v.
func findRelease(v any, ident string) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		if x["ident"] == ident && x["action"] != nil {
			return x
		}
		for _, e := range x {
			if r := findRelease(e, ident); r != nil {
				return r
			}
		}
	case []any:
		for _, e := range x {
			if r := findRelease(e, ident); r != nil {
				return r
			}
		}
	}
	return nil
}

// TestDryRunShowsInstallProtections: `run --dry-run` at each
// point of a Habitat install (storetest.Installer) keeps what the install
// needs, saying why, as a real run does (retention's
// TestInstallInProgressKeepsWhatItNeeds).
func TestDryRunShowsInstallProtections(t *testing.T) {
	t.Parallel()
	exe := testtool.Executable(t)
	const (
		dep    = "core/dep/1.0/20200101000000"
		depNew = "core/dep/2.0/20210101000000"
		lib    = "core/lib/1.0/20261201000000"
		app    = "core/app/1.0/20261201000000"
	)
	cases := []struct {
		name     string
		cached   bool
		metaLast bool
		at       func(storetest.Point) bool
	}{
		{"archive just fetched, dependency Using", false, false, func(p storetest.Point) bool { return p.Step == storetest.StepUsing && p.Ident == dep }},
		{"archive cached days ago, temp dir empty", true, false, func(p storetest.Point) bool { return p.Top && p.Step == storetest.StepTempDir }},
		{"half unpacked before DEPS and TDEPS", true, true, func(p storetest.Point) bool {
			return p.Top && p.Step == storetest.StepUnpacking && p.Done == p.Total/2
		}},
		{"unpacked not renamed", true, false, func(p storetest.Point) bool { return p.Top && p.Step == storetest.StepUnpacked }},
		{"a missing dep unpacked first", true, true, func(p storetest.Point) bool {
			return p.Ident == lib && p.Step == storetest.StepUnpacking && p.Done == 1
		}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			b := hostStore(t)
			old := time.Now().Add(-48 * time.Hour)
			b.Add(storetest.Release{Ident: dep, ModTime: old}, storetest.Release{Ident: depNew, ModTime: old})
			in := hostInstaller(b, 3)
			for _, a := range []storetest.Archive{
				{Ident: app, Deps: []string{lib, dep}, Payload: []string{"bin/app", "lib/x.so"}, MetaLast: tt.metaLast},
				{Ident: lib, Payload: []string{"lib/a.so", "lib/b.so"}, MetaLast: tt.metaLast},
			} {
				if tt.cached {
					if err := in.Cache(a, 72*time.Hour); err != nil {
						t.Fatal(err)
					}
				} else {
					in.Publish(a)
				}
			}
			ran := false
			in.At = func(p storetest.Point) error {
				if ran || !tt.at(p) {
					return nil
				}
				ran = true
				var stdout, stderr bytes.Buffer
				cmd := &exec.Cmd{Path: exe, Args: []string{"hab-gc", "run", "--fs-root", b.Root, "--keep-latest=1", "--min-age=none", "--dry-run", "--json"}, Stdout: &stdout, Stderr: &stderr}
				cmd.Run()
				var v any
				if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
					t.Fatalf("%v; stdout %s; stderr %s", err, stdout.String(), stderr.String())
				}
				r := findRelease(v, dep)
				if r == nil || r["action"] != "keep" || !strings.Contains(stdout.String(), `"install-in-progress"`) {
					t.Errorf("dry run at %s %s: %v\nstderr %s", p.Step, p.Ident, r, stderr.String())
				}
				return nil
			}
			if err := in.Install(app); err != nil {
				t.Fatal(err)
			}
			if !ran {
				t.Fatal("never paused")
			}
		})
	}
}

// TestCacheKeepsArchivesBeingInstalled: `run --cache` while
// Habitat is installing from a cached archive (its install directory made,
// nothing unpacked yet) keeps that archive, which Habitat opens again to
// unpack, and what the install needs; the install then succeeds whole.
func TestCacheKeepsArchivesBeingInstalled(t *testing.T) {
	exe := testtool.Executable(t)
	const (
		dep    = "core/dep/1.0/20200101000000"
		depNew = "core/dep/2.0/20210101000000"
		app    = "core/app/1.0/20261201000000"
	)
	b := hostStore(t)
	old := time.Now().Add(-48 * time.Hour)
	b.Add(storetest.Release{Ident: dep, ModTime: old}, storetest.Release{Ident: depNew, ModTime: old})
	in := hostInstaller(b, 5)
	if err := in.Cache(storetest.Archive{Ident: app, Deps: []string{dep}, Payload: []string{"bin/app"}}, 72*time.Hour); err != nil {
		t.Fatal(err)
	}
	ran := false
	in.At = func(p storetest.Point) error {
		if p.Top && p.Step == storetest.StepTempDir {
			ran = true
			var stdout, stderr bytes.Buffer
			cmd := &exec.Cmd{Path: exe, Args: []string{"hab-gc", "run", "--fs-root", b.Root, "--keep-latest=1", "--min-age=none", "--cache", "--cache-keep-latest=0", "--json"}, Stdout: &stdout, Stderr: &stderr}
			cmd.Run()
			if !strings.Contains(stdout.String(), `"install-in-progress"`) || !strings.Contains(stdout.String(), "Habitat unpacks it from this archive") {
				t.Errorf("the cache's plan does not say the archive is being installed:\n%s\nstderr %s", stdout.String(), stderr.String())
			}
		}
		return nil
	}
	if err := in.Install(app); err != nil {
		t.Fatalf("install: %v", err)
	}
	if !ran || !in.Installed(app) || !in.Installed(dep) {
		t.Fatalf("ran %v, app installed %v, %s installed %v", ran, in.Installed(app), dep, in.Installed(dep))
	}
}

//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// errKilled stops an install as a kill would.
var errKilled = errors.New("killed")

// killedInstall installs ident as `hab pkg install` does
// (storetest.Installer: components/common/src/command/package/install.rs
// unpack_artifact, its temp directory named by
// components/core/src/package/list.rs temp_package_directory) and kills it
// once the first entry is unpacked: it leaves
// ORIGIN/NAME/VERSION/.hab-pkg-install-RELEASEXXXXXX, which Habitat's
// listing skips (list.rs package_ident_from_dir, INSTALL_TMP_PREFIX) and
// nothing removes. It returns the directory's path.
func killedInstall(t *testing.T, b *storetest.Builder, ident string) string {
	t.Helper()
	in := hostInstaller(b, 47)
	in.Publish(storetest.Archive{Ident: ident, Payload: []string{"bin/redis-server", "share/doc.txt"}})
	var temp string
	in.At = func(p storetest.Point) error {
		if p.Step == storetest.StepUnpacking {
			temp = p.Path
			return errKilled
		}
		return nil
	}
	if err := in.Install(ident); !errors.Is(err, errKilled) {
		t.Fatalf("install of %s: %v, want it killed", ident, err)
	}
	if !strings.HasPrefix(filepath.Base(temp), ".hab-pkg-install-"+filepath.Base(ident)) {
		t.Fatalf("the killed install left %q", temp)
	}
	return temp
}

// TestRunRemovesLeftoverInstallDirs: an install directory older than the
// install window that no process holds is a killed install's leftover:
// run removes it, counts it in its report and records it in the history,
// and check says a run would remove it. A young one, or one a live process
// holds, stays.
func TestRunRemovesLeftoverInstallDirs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		window string // install_window; "" the default, 1h
		hold   proctest.How
		gone   bool
	}{
		{"older than the install window, held by no process", "1ns", "", true},
		{"younger than the install window", "", "", false},
		{"held open by a live process", "1ns", proctest.Open, false},
		{"a live process works in it", "1ns", proctest.Cwd, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := hostStore(t)
			b.Old("core/redis/6.2.5/20240101000000", "core/redis/6.2.6/20240201000000")
			temp := killedInstall(t, b, "core/redis/7.0.0/20240301000000")
			name := filepath.Base(temp)
			if tc.hold != "" {
				var held string
				filepath.WalkDir(temp, func(p string, d fs.DirEntry, err error) error {
					if err == nil && d.Type().IsRegular() && held == "" {
						held = p
					}
					return err
				})
				if held == "" {
					t.Fatalf("no file unpacked in %s", temp)
				}
				proctest.Start(t, tc.hold, held)
			}
			var window []string
			if tc.window != "" {
				cfg := filepath.Join(testtool.TempDir(t), "hab-gc.toml")
				if err := os.WriteFile(cfg, []byte("install_window = \""+tc.window+"\"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				window = []string{"--config", cfg}
			}

			var checkOut, checkErr bytes.Buffer
			execute(append([]string{"check", "--fs-root", b.Root}, window...), &checkOut, &checkErr, noEnv)
			says := saysRemove(checkOut.String()+checkErr.String(), name)

			var out, errb bytes.Buffer
			if code := execute(append([]string{"run", "--keep-latest=1", "--min-age=none", "--json", "--fs-root", b.Root}, window...), &out, &errb, noEnv); code != exitOK {
				t.Fatalf("run: exit %d\n%s%s", code, out.String(), errb.String())
			}
			_, err := os.Lstat(temp)
			if gone := os.IsNotExist(err); gone != tc.gone {
				t.Errorf("%s removed: %v (%v), want %v\n%s", name, gone, err, tc.gone, errb.String())
			}
			if !tc.gone {
				if says {
					t.Errorf("check says a run would remove %s:\n%s", name, checkOut.String())
				}
				return
			}
			if !says {
				t.Errorf("check does not say a run would remove %s:\n%s%s", name, checkOut.String(), checkErr.String())
			}
			var rep map[string]any
			noErr(t, json.Unmarshal(out.Bytes(), &rep))
			delete(rep, "problems") // where the scan reports it, removed or not
			if counted, _ := json.Marshal(rep); !strings.Contains(string(counted), name) {
				t.Errorf("the run's report does not count the removal of %s:\n%s", name, out.String())
			}
			var hist, histErr bytes.Buffer
			if code := execute([]string{"history", "--fs-root", b.Root}, &hist, &histErr, noEnv); code != exitOK {
				t.Fatalf("history: exit %d: %s", code, histErr.String())
			}
			if !strings.Contains(hist.String(), name) {
				t.Errorf("the history does not record the removal of %s:\n%s", name, hist.String())
			}
		})
	}
}

// saysRemove reports whether out, a check's output, has a line naming dir
// that says (there or on the next line, its explanation) it would be
// removed.
func saysRemove(out, dir string) bool {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.Contains(l, dir) {
			continue
		}
		if strings.Contains(l, "remov") || i+1 < len(lines) && strings.Contains(lines[i+1], "remov") {
			return true
		}
	}
	return false
}

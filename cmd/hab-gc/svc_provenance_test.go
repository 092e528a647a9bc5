//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// renameHelperEnv set to 1 makes a copy of this test binary run as
// TestRenameHelper: it reads FROM and TO, a line each, from its standard
// input, renames FROM to TO, says "renamed", and exits when its standard
// input closes. The paths come on its input, not in its environment or
// command line, where runtime roots would see them as a use.
const renameHelperEnv = "HAB_GC_TEST_RENAME"

// TestRenameHelper is not a test: a copy of this binary named hab-sup or
// hab runs it to rename a release into place as that program, so that the
// kernel reports that program as the one that installed it.
func TestRenameHelper(t *testing.T) {
	if os.Getenv(renameHelperEnv) != "1" {
		t.Skip("run by the provenance tests only")
	}
	in := bufio.NewReader(os.Stdin)
	from, _ := in.ReadString('\n')
	to, _ := in.ReadString('\n')
	if err := os.Rename(strings.TrimSuffix(from, "\n"), strings.TrimSuffix(to, "\n")); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("renamed\n")
	io.Copy(io.Discard, in)
}

// renamer is a running copy of this binary named as a program.
type renamer struct {
	cmd   *exec.Cmd
	stdin io.Closer
}

// renameAs runs the copy of this binary at exe (named hab-sup or hab) to
// rename from to to, and returns once it has; it lives until exit is
// called or the test ends.
func renameAs(t *testing.T, exe, from, to string) *renamer {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^TestRenameHelper$")
	cmd.Env = append(os.Environ(), renameHelperEnv+"=1")
	cmd.Dir = "/"
	stdin, err := cmd.StdinPipe()
	noErr(t, err)
	stdout, err := cmd.StdoutPipe()
	noErr(t, err)
	noErr(t, cmd.Start())
	r := &renamer{cmd: cmd, stdin: stdin}
	t.Cleanup(r.exit)
	io.WriteString(stdin, from+"\n"+to+"\n")
	if line, err := bufio.NewReader(stdout).ReadString('\n'); strings.TrimSpace(line) != "renamed" {
		r.exit()
		t.Fatalf("%s did not rename %s: %q %v", filepath.Base(exe), from, line, err)
	}
	return r
}

// exit closes the renamer's input and waits for it to end.
func (r *renamer) exit() {
	r.stdin.Close()
	r.cmd.Wait()
}

// installAs installs ident as `hab pkg install` does (storetest.Installer:
// components/common/src/command/package/install.rs unpack_artifact), the
// rename of TEMP/hab/pkgs/O/N/V/R to O/N/V/R done by the program at exe,
// which lives on while the temp directory is removed, as the installing
// process does (the TempDir is dropped after the rename). With stay, it
// lives on after the install too, as the Supervisor does; else it exits
// then, as `hab pkg install` does.
func installAs(t *testing.T, b *storetest.Builder, exe, ident string, stay bool) {
	t.Helper()
	in := hostInstaller(b, uint64(len(ident)))
	in.Publish(storetest.Archive{Ident: ident})
	var r *renamer
	in.At = func(p storetest.Point) error {
		switch {
		case p.Step == storetest.StepUnpacked:
			r = renameAs(t, exe, filepath.Join(p.Path, "hab", "pkgs", filepath.FromSlash(ident)), b.PkgPath(ident))
		case p.Step == storetest.StepInstalled && !stay:
			// A program that has ended cannot be named: watch reads
			// its name first, as it does that of hab pkg install,
			// which has more to do after its rename.
			waitInstalledBy(t, b, ident, filepath.Base(exe))
			r.exit()
		}
		return nil
	}
	noErr(t, in.Install(ident))
}

// waitInstalledBy waits until list --json says by installed ident.
func waitInstalledBy(t *testing.T, b *storetest.Builder, ident, by string) {
	t.Helper()
	waitFor(t, ident+" installed by "+by, func() bool {
		var out bytes.Buffer
		execute([]string{"list", "--json", "--fs-root", b.Root}, &out, io.Discard, noEnv)
		type release struct {
			Ident       string `json:"ident"`
			InstalledBy string `json:"installed_by"`
		}
		var list struct {
			Releases []release `json:"releases"`
		}
		json.Unmarshal(out.Bytes(), &list)
		return slices.Contains(list.Releases, release{ident, by})
	}, &testtool.SyncBuffer{})
}

// TestOnlySupervisorInstalled: while watch runs, the kernel tells which
// program renamed each new release into place (fanotify, Linux 5.9 and
// later, root). With --only-supervisor-installed, watch and run remove
// only what the Supervisor (hab-sup) installed: a release the hab CLI
// installed, or one installed before watch ran (unknown), stays and says
// why; why, list --json and history show who installed each release.
func TestOnlySupervisorInstalled(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("fanotify's directory events need root")
	}
	var u unix.Utsname
	noErr(t, unix.Uname(&u))
	if m := regexp.MustCompile(`^(\d+)\.(\d+)`).FindStringSubmatch(unix.ByteSliceToString(u.Release[:])); m == nil ||
		atoi(m[1])*1000+atoi(m[2]) < 5009 {
		t.Skipf("fanotify reports directory events with their name from Linux 5.9; this is %s", unix.ByteSliceToString(u.Release[:]))
	}
	const (
		before = "core/redis/1.0.0/20240101000000" // installed before watch ran
		byHab  = "core/redis/2.0.0/20240201000000"
		bySup1 = "core/redis/3.0.0/20240301000000"
		bySup2 = "core/redis/4.0.0/20240401000000"
	)
	bin := testtool.TempDir(t)
	hab := testtool.CopyTestBinary(t, bin, "hab")
	habSup := testtool.CopyTestBinary(t, bin, "hab-sup")
	b := hostStore(t)
	b.Old(before, svcBarrier)
	b.Spec("redis", "core/redis")
	// The install window is made tiny: the releases are installed seconds
	// apart, and an archive that came into the cache within the window
	// keeps its release at a purge's revalidation once the purge has
	// hidden it, which is not what this test is about.
	cmd, stderr := startWatch(t, b, "--keep-latest=1", "--only-supervisor-installed", "--install-window=1ns")

	installAs(t, b, hab, byHab, false)
	installAs(t, b, habSup, bySup1, true)
	installAs(t, b, habSup, bySup2, true)
	// The Supervisor's updater restarts the service on the release it
	// installed (manager.rs restart_services_rsw_mlr_rhw_msw), which writes
	// the service's PID file and purges it.
	p := proctest.Start(t, proctest.Exec, proctest.Sleep(t))
	_, err := storetest.WritePIDFile(b.Root, "redis", p.PID())
	noErr(t, err)
	loadAndStartBarrier(t, b, stderr)
	if err := testtool.Terminate(t, cmd); err != nil {
		t.Fatalf("watch exited with %v; stderr:\n%s", err, stderr)
	}
	for id, want := range map[string]bool{before: true, byHab: true, bySup1: false, bySup2: true} {
		if _, err := os.Stat(b.PkgPath(id)); (err == nil) != want {
			t.Errorf("%s installed: %v, want %v; stderr:\n%s", id, err == nil, want, stderr)
		}
	}

	args := []string{"run", "--keep-latest=0", "--allow-keep-none", "--only-supervisor-installed", "--install-window=1ns", "--min-age=none", "--dry-run", "--fs-root", b.Root}
	for id, says := range map[string]*regexp.Regexp{
		byHab:  regexp.MustCompile(`(^|[^-\w/])hab([^-\w/]|$)`),
		before: regexp.MustCompile(`unknown`),
	} {
		if action, reasons, _ := releaseReasons(t, args, id); action != "keep" || !says.MatchString(reasons) {
			t.Errorf("%s: action %q, reasons:\n%s\nwant keep, saying who installed it (%s)", id, action, reasons, says)
		}
	}
	if action, reasons, _ := releaseReasons(t, args, bySup2); action != "keep" || !strings.Contains(reasons, "PID") {
		t.Errorf("%s: action %q, reasons:\n%s\nwant keep: the service runs it", bySup2, action, reasons)
	}

	show := func(args ...string) string {
		var out, errb bytes.Buffer
		if code := execute(append(args, "--fs-root", b.Root), &out, &errb, noEnv); code != exitOK {
			t.Fatalf("hab-gc %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		return out.String()
	}
	if out := show("why", bySup2, "--keep-latest=1", "--min-age=none"); !strings.Contains(out, "hab-sup") {
		t.Errorf("why does not say hab-sup installed %s:\n%s", bySup2, out)
	}
	if out := show("why", before, "--keep-latest=1", "--min-age=none"); !strings.Contains(out, "unknown") {
		t.Errorf("why does not say who installed %s is unknown:\n%s", before, out)
	}
	var list struct {
		Releases []map[string]any `json:"releases"`
	}
	noErr(t, json.Unmarshal([]byte(show("list", "--json")), &list))
	for id, want := range map[string]string{bySup2: "hab-sup", before: "unknown"} {
		found := false
		for _, r := range list.Releases {
			if r["ident"] == id {
				found = true
				if j, _ := json.Marshal(r); !strings.Contains(string(j), want) {
					t.Errorf("list --json does not say who installed %s (%s): %s", id, want, j)
				}
			}
		}
		if !found {
			t.Errorf("list --json does not list %s", id)
		}
	}
	if out := show("history"); !regexp.MustCompile(`(?s)removed ` + regexp.QuoteMeta(bySup1) + `.*hab-sup`).MatchString(out) {
		t.Errorf("history does not say hab-sup installed %s, which watch removed:\n%s", bySup1, out)
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

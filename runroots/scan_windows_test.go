//go:build windows

package runroots_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/runroots"
)

const sleepEnv = "HAB_GC_RUNROOTS_SLEEP"

// TestMain turns the test binary, copied into a release, into a program
// that runs from it until killed.
func TestMain(m *testing.M) {
	if os.Getenv(sleepEnv) != "" {
		os.Stdout.WriteString("running\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestScanWindowsSeesProcessImage: a process running a program of a
// release (its image in C:\hab\pkgs\...\bin) is a use of that release,
// read from the process list, and the scan says what Windows does not
// show it.
func TestScanWindowsSeesProcessImage(t *testing.T) {
	const app = "core/app/1.0.0/20200101000000"
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: app, Target: "x86_64-windows"})
	exe := filepath.Join(b.PkgPath(app), "bin", "app.exe")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.Create(exe)
	if err == nil {
		_, err = io.Copy(dst, src)
		dst.Close()
	}
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), sleepEnv+"=1")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		// A Wine that cannot start a copy of a test binary (one here
		// once refused: "Too many open files"; Wine 8.0 with .ci/run's
		// prefix starts it, and this test passes) skips, saying what
		// a Windows machine shows.
		t.Skipf("starting %s: %v: on a Windows machine the scan shows this process executing bin/app.exe of %s", exe, err, app)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	started := make(chan struct{})
	go func() { io.ReadFull(out, make([]byte, 8)); close(started) }()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the program did not start within 30s")
	}
	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-windows"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := runroots.Scan(context.Background(), "", inv)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, u := range res.Uses {
		if u.PID == cmd.Process.Pid && u.Ident.String() == app && u.Kind == runroots.KindExe && u.File == "bin/app.exe" {
			found = true
		}
	}
	if !found {
		t.Errorf("uses %+v; want process %d executing bin/app.exe of %s", res.Uses, cmd.Process.Pid, app)
	}
	if !res.Blind() || !strings.Contains(res.Summary(), "not its open files") {
		t.Errorf("summary %q (blind %v): want it to say what Windows does not show", res.Summary(), res.Blind())
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestInterruptedRunRestores: SIGTERM while a run has hidden releases
// (during the settle pause) puts every one of them back: nothing is
// removed, the exit code is 7, and the JSON's counts say so and add up.
func TestInterruptedRunRestores(t *testing.T) {
	testtool.NeedSignals(t)
	exe := testtool.Executable(t)
	b := storetest.New(t)
	old := time.Now().Add(-48 * time.Hour)
	const libs = 5
	for i := 0; i < libs; i++ {
		b.Add(storetest.Release{Ident: fmt.Sprintf("core/lib%d/1/20200101000000", i), ModTime: old},
			storetest.Release{Ident: fmt.Sprintf("core/lib%d/2/20210101000000", i), ModTime: old})
	}
	var stdout, stderr bytes.Buffer
	cmd := &exec.Cmd{Path: exe, Args: []string{"hab-gc", "run", "--fs-root", b.Root, "--keep-latest=1", "--min-age=none", "--json"}, Stdout: &stdout, Stderr: &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait until it has hidden a release (it then settles for 2s).
	pattern := filepath.Join(b.Root, "hab/pkgs/*/*/*", pkgstore.DebrisPrefix+"pending-*")
	for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			break
		}
		if time.Since(start) > 20*time.Second {
			cmd.Process.Kill()
			t.Fatalf("never hid anything; stderr %s", stderr.String())
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	var ee *exec.ExitError
	select {
	case err := <-done:
		if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
			t.Fatalf("ended with %v, want exit %d; stderr %s", err, exitInterrupted, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("still running 30s after SIGTERM")
	}
	var rep struct {
		Summary struct {
			Remove, Removed, Failed int
			NotAttempted            int `json:"not_attempted"`
			KeptAtRun               int `json:"kept_at_revalidation"`
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	s := rep.Summary
	if s.Remove != libs || s.Removed != 0 || s.Removed+s.KeptAtRun+s.Failed+s.NotAttempted != s.Remove {
		t.Fatalf("summary %+v", s)
	}
	for i := 0; i < libs; i++ {
		if _, err := os.Stat(b.PkgPath(fmt.Sprintf("core/lib%d/1/20200101000000", i)) + "/TARGET"); err != nil {
			t.Errorf("lib%d: %v", i, err)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(b.Root, "hab/pkgs/*/*/*", pkgstore.DebrisPrefix+"*")); len(m) > 0 {
		t.Errorf("left hidden: %v", m)
	}
	// The journal says interrupted, as the exit status does,
	// not "run failed ... context canceled".
	j, err := history.ForFSRoot(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := j.Read()
	if err != nil || len(recs) == 0 {
		t.Fatalf("history: %v %v", recs, err)
	}
	if last := recs[len(recs)-1]; last.Kind != history.KindRun || last.Outcome != history.RunInterrupted {
		t.Errorf("the run is journalled as %s (%s), want %s", last.Outcome, last.Error, history.RunInterrupted)
	}
}

// TestLeftoverFailureExits4: a hidden release hab-gc cannot delete
// (chattr +i) fails the run that hid it and every later run, with exit 4
// and a failed count that says so.
func TestLeftoverFailureExits4(t *testing.T) {
	t.Parallel()
	chattr := testtool.Need(t, "chattr", "e2fsprogs")
	if os.Geteuid() != 0 {
		t.Skip("chattr +i needs root")
	}
	b := storetest.New(t)
	old := time.Now().Add(-48 * time.Hour)
	b.Add(storetest.Release{Ident: "core/a/1/20200101000000", ModTime: old},
		storetest.Release{Ident: "core/a/2/20210101000000", ModTime: old})
	stuck := b.PkgPath("core/a/1/20200101000000") + "/MANIFEST"
	if err := exec.Command(chattr, "+i", stuck).Run(); err != nil {
		t.Skipf("chattr +i not available here: %v", err)
	}
	var hidden []string
	t.Cleanup(func() {
		for _, h := range hidden {
			exec.Command(chattr, "-i", h).Run()
		}
	})
	for run := 1; run <= 2; run++ {
		code, out, errs := hab(t, nil, "run", "--fs-root", b.Root, "--keep-latest=1", "--min-age=none", "--json")
		hidden, _ = filepath.Glob(filepath.Join(b.Root, "hab/pkgs/core/a/1", pkgstore.DebrisPrefix+"*", "MANIFEST"))
		var rep struct{ Summary struct{ Failed int } }
		json.Unmarshal([]byte(out), &rep)
		if code != exitPartial || rep.Summary.Failed != 1 {
			t.Fatalf("run %d: exit %d, failed %d, want 4 and 1; stderr %s", run, code, rep.Summary.Failed, errs)
		}
	}
}

// Package proctest starts real processes that use a file of a package
// store in one of the ways a running program can (executing it, holding
// it open, having it mapped, naming it in its environment, working in its
// directory), for tests of runtime roots. It is internal: importers of
// hab-gc must not depend on it.
package proctest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// How a process uses a file.
type How string

const (
	Exec How = "exec" // the file is its executable (it must be one: see CopySleep)
	Open How = "open" // it holds the file open (fd 3)
	Map  How = "map"  // it has the file mapped, no descriptor left open
	Env  How = "env"  // its PATH names the file's directory
	Cwd  How = "cwd"  // its working directory is the file's directory
)

// helperEnv switches a re-executed test binary into the mapping helper.
const helperEnv = "HAB_GC_PROCTEST_MAP"

// RunHelper must be called first in TestMain of a package that uses Map:
// when the test binary was re-executed as the helper, it maps the file,
// closes its descriptor, says "ready" and sleeps until killed; it never
// returns then.
func RunHelper() {
	file := os.Getenv(helperEnv)
	if file == "" {
		return
	}
	f, err := os.Open(file)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		fmt.Println("error: cannot map an empty or unreadable file", err)
		os.Exit(1)
	}
	mem, err := mapFile(f, int(fi.Size()))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	f.Close()
	fmt.Println("ready")
	for {
		time.Sleep(time.Hour)
		_ = mem[0]
	}
}

// Proc is a started process.
type Proc struct {
	Cmd  *exec.Cmd
	done bool
}

// PID returns the process id.
func (p *Proc) PID() int { return p.Cmd.Process.Pid }

// Stop kills the process and waits for it, so that it is gone from /proc
// when Stop returns.
func (p *Proc) Stop() {
	if p.done {
		return
	}
	p.done = true
	p.Cmd.Process.Kill()
	p.Cmd.Wait()
}

// Sleep returns the path of the system's sleep binary.
func Sleep(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary on PATH:", err)
	}
	return p
}

// CopySleep copies the system's sleep binary to dst (made executable),
// so that a process can run from inside a release.
func CopySleep(t testing.TB, dst string) {
	t.Helper()
	src, err := os.Open(Sleep(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, src); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// Start starts a process that uses file the given way and stops it when
// the test ends. It returns once the use is in place.
func Start(t testing.TB, how How, file string) *Proc {
	t.Helper()
	var cmd *exec.Cmd
	switch how {
	case Exec:
		cmd = exec.Command(file, "600")
	case Open:
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd = exec.Command(Sleep(t), "600")
		cmd.ExtraFiles = []*os.File{f}
	case Map:
		cmd = exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), helperEnv+"="+file)
	case Env:
		cmd = exec.Command(Sleep(t), "600")
		cmd.Env = []string{"PATH=" + filepath.Dir(file) + ":/usr/bin:/bin"}
	case Cwd:
		cmd = exec.Command(Sleep(t), "600")
		cmd.Dir = filepath.Dir(file)
	default:
		t.Fatalf("proctest: unknown use %q", how)
	}
	var out io.ReadCloser
	if how == Map {
		var err error
		if out, err = cmd.StdoutPipe(); err != nil {
			t.Fatal(err)
		}
	}
	err := cmd.Start()
	// A file just written (CopySleep) may still be open for writing in a
	// child another test forked and has not yet exec'd (Go issue 22315):
	// exec then fails with ETXTBSY until that child execs.
	for i := 0; how == Exec && errors.Is(err, syscall.ETXTBSY) && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
		cmd = exec.Command(file, "600")
		err = cmd.Start()
	}
	if err != nil {
		t.Fatalf("starting a process that uses %s (%s): %v", file, how, err)
	}
	p := &Proc{Cmd: cmd}
	t.Cleanup(p.Stop)
	if out != nil {
		line, err := bufio.NewReader(out).ReadString('\n')
		if strings.TrimSpace(line) != "ready" {
			p.Stop()
			t.Fatalf("mapping helper did not start: %q %v", line, err)
		}
	}
	return p
}

//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/retention"
)

// openPTY returns a pseudo-terminal's controlling side (to read what was
// drawn) and its terminal side (what hab-gc writes to as stderr).
func openPTY(t *testing.T) (ptm, pts *os.File) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here (%v): terminal output cannot be tested", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil { // pollable: read deadlines work
		t.Skipf("ptmx: %v", err)
	}
	ptm = os.NewFile(uintptr(fd), "/dev/ptmx")
	t.Cleanup(func() { ptm.Close() })
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	pts, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { pts.Close() })
	return ptm, pts
}

// drawn reads what the terminal received so far.
func drawn(t *testing.T, ptm *os.File) string {
	t.Helper()
	var out []byte
	buf := make([]byte, 4096)
	for {
		ptm.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		n, err := ptm.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			return string(out)
		}
	}
}

// TestProgressOnTerminal: on a terminal the scan shows its count against
// its total once known (never an unknown total), then the planning, each phase of the removal by name with its
// count; elsewhere nothing is drawn.
func TestProgressOnTerminal(t *testing.T) {
	events := func(p *progress) {
		for _, e := range []retention.PhaseEvent{
			{Phase: retention.PhaseScan}, {Phase: retention.PhaseScan, Total: 340}, {Phase: retention.PhaseScan, Done: 340, Total: 340},
			{Phase: retention.PhasePlan},
			{Phase: retention.PhaseLock}, {Phase: retention.PhaseRescan},
			{Phase: retention.PhaseHide, Total: 2}, {Phase: retention.PhaseHide, Done: 1, Total: 2}, {Phase: retention.PhaseHide, Done: 2, Total: 2},
			{Phase: retention.PhaseSettle}, {Phase: retention.PhaseRecheck},
			{Phase: retention.PhaseDelete, Total: 2}, {Phase: retention.PhaseDelete, Done: 2, Total: 2},
		} {
			p.onPhase(e)
		}
		p.done()
	}
	ptm, pts := openPTY(t)
	events(newProgress(pts))
	got := drawn(t, ptm)
	for _, want := range []string{"scanning...", "scanning 0/340", "scanning 340/340", "planning...", "locking...", "rescanning...", "hiding 0/2", "hiding 2/2", "settling...", "re-checking...", "deleting 0/2", "deleting 2/2"} {
		if !strings.Contains(got, want) {
			t.Errorf("terminal shows %q; want %q in it", got, want)
		}
	}
	if strings.Contains(got, "/-") {
		t.Errorf("terminal shows %q: an unknown total", got)
	}

	var buf bytes.Buffer
	events(newProgress(&buf))
	f, err := os.Create(filepath.Join(testtool.TempDir(t), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	events(newProgress(f))
	if st, _ := f.Stat(); buf.Len() > 0 || st.Size() > 0 {
		t.Errorf("drawn where stderr is not a terminal: %q", buf.String())
	}
}

package schedule_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

// hourly50 is an environment with 50 prunes of one store, job i at
// minute i of every hour (from 00:00, one falls due each minute).
func hourly50(t *testing.T) (*env, *schedule.Scheduler, map[int]string) {
	t.Helper()
	e := newEnv(t)
	root := e.store()
	for i := range 50 {
		e.write(fmt.Sprintf("j%02d", i), prune(root, fmt.Sprintf("%d * * * *", i)))
	}
	s := e.loaded()
	keys := map[int]string{}
	for _, j := range s.Jobs() {
		var m int
		fmt.Sscanf(j.Cron, "%d", &m)
		keys[m] = j.Key
	}
	if len(keys) != 50 {
		t.Fatalf("%d jobs", len(keys))
	}
	return e, s, keys
}

func statOf(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// TestStateJournalAppendsWhatChanged (issue 32 item 8): the run of one
// job among 50 appends its record to the journal; the state file itself
// is not rewritten, and reading both gives the run.
func TestStateJournalAppendsWhatChanged(t *testing.T) {
	e, s, keys := hourly50(t)
	base := statOf(t, e.state)
	e.clock.Add(90 * time.Second) // 00:01:30: job 1 due
	if outs := s.RunDue(context.Background()); len(outs) != 1 || !outs[0].Ran {
		t.Fatalf("outcomes %+v, want job 1's run", outs)
	}
	after := statOf(t, e.state)
	if !os.SameFile(base, after) || after.Size() != base.Size() || !after.ModTime().Equal(base.ModTime()) {
		t.Fatal("the state file was rewritten for one run")
	}
	j := statOf(t, e.state+".journal")
	if j.Size() > 2048 || j.Size()*10 > base.Size() {
		t.Fatalf("journal %d bytes for one run (state file %d bytes), want in proportion to the run", j.Size(), base.Size())
	}
	st, err := schedule.LoadState(e.state)
	if err != nil {
		t.Fatal(err)
	}
	if js := st.Jobs[keys[1]]; js == nil || js.Runs != 1 || js.LastRun == nil {
		t.Fatalf("job 1 read back as %+v, want its run", js)
	}
	if n := len(st.Jobs); n != 50 {
		t.Fatalf("%d jobs read back", n)
	}
}

// TestStateJournalCompacts: over 300 runs the journal never outgrows the
// state file (at least 64 KiB) by more than one record: the state is
// written whole again, and every due time still runs exactly once, as a
// scheduler started afresh on the files sees.
func TestStateJournalCompacts(t *testing.T) {
	e, s, keys := hourly50(t)
	e.clock.Add(30 * time.Second)
	compactions, last := 0, statOf(t, e.state)
	for range 300 {
		e.clock.Add(time.Minute)
		s.RunDue(context.Background())
		fi := statOf(t, e.state)
		if !os.SameFile(fi, last) {
			compactions++
			last = fi
		}
		if j, err := os.Stat(e.state + ".journal"); err == nil && j.Size() > max(fi.Size(), 64<<10)+2048 {
			t.Fatalf("journal %d bytes, state file %d", j.Size(), fi.Size())
		}
	}
	if compactions == 0 {
		t.Fatal("300 runs and the state was never written whole")
	}
	st, err := schedule.LoadState(e.state)
	if err != nil {
		t.Fatal(err)
	}
	for m, k := range keys {
		// From 00:00:30 to 05:00:30: minute m of hours 0 to 4 (job 0's
		// 00:00 is its creation, not a due time, and 05:00 its fifth).
		want := 5
		if e.count(k) != want || st.Jobs[k].Runs != want {
			t.Errorf("job %d: %d runs, %d recorded, want %d", m, e.count(k), st.Jobs[k].Runs, want)
		}
	}
	// A scheduler started afresh on the files runs nothing twice.
	s2 := e.scheduler()
	e.reload(s2)
	before := 0
	for _, k := range keys {
		before += e.count(k)
	}
	s2.RunDue(context.Background())
	after := 0
	for _, k := range keys {
		after += e.count(k)
	}
	if after != before {
		t.Fatalf("a restart ran %d due times again", after-before)
	}
	t.Logf("%d compactions", compactions)
}

// TestStateJournalDamage: what a crash, another program or a disk leave
// in the journal. A last line cut short (a crash while appending) is
// ignored and the state written whole at the next update; a journal of
// another state file (a crash between writing the state whole and
// removing the old journal) is not read; a damaged line is kept aside
// with the state file and the state rebuilt. In each, no due time runs
// twice and the next runs.
func TestStateJournalDamage(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, journal []byte) []byte
		aside  bool
	}{
		{"cut short", func(t *testing.T, j []byte) []byte {
			return append(j, []byte(`{"jobs":{"x":{"type":"pru`)...)
		}, false},
		{"another state's", func(t *testing.T, j []byte) []byte {
			head, rest, _ := bytes.Cut(j, []byte("\n"))
			if !bytes.Contains(head, []byte(`"base":"`)) {
				t.Fatalf("header %s", head)
			}
			return append([]byte(`{"journal":1,"base":"another-state"}`+"\n"), rest...)
		}, false},
		{"damaged line", func(t *testing.T, j []byte) []byte {
			head, rest, _ := bytes.Cut(j, []byte("\n"))
			return append(append(append(head, '\n'), []byte("\x00garbage\n")...), rest...)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, s, keys := hourly50(t)
			e.clock.Add(90 * time.Second)
			s.RunDue(context.Background()) // job 1 runs: the journal holds it
			e.clock.Add(time.Minute)
			s.RunDue(context.Background()) // job 2
			jpath := e.state + ".journal"
			j, err := os.ReadFile(jpath)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(jpath, tt.damage(t, j), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = schedule.LoadState(e.state)
			if tt.aside != errors.Is(err, schedule.ErrCorruptState) {
				t.Fatalf("LoadState: %v", err)
			}
			for range 3 { // 00:03 to 00:05: jobs 3, 4, 5
				e.clock.Add(time.Minute)
				s.RunDue(context.Background())
			}
			// The same scheduler, and one started on the files.
			e.reload(s)
			s.RunDue(context.Background())
			s2 := e.scheduler()
			e.reload(s2)
			s2.RunDue(context.Background())
			for m := 1; m <= 5; m++ {
				if n := e.count(keys[m]); n != 1 {
					t.Errorf("job %d ran %d times, want 1", m, n)
				}
			}
			st, err := schedule.LoadState(e.state)
			if err != nil {
				t.Fatal(err)
			}
			for m := 3; m <= 5; m++ {
				if st.Jobs[keys[m]].Runs != 1 {
					t.Errorf("job %d: %d runs recorded", m, st.Jobs[keys[m]].Runs)
				}
			}
			aside, _ := filepath.Glob(jpath + ".corrupt-*")
			if tt.aside {
				if len(aside) != 1 || len(asideFiles(t, e.state)) != 1 {
					t.Fatalf("kept aside: journal %v, state %v; want one each", aside, asideFiles(t, e.state))
				}
				if b, _ := os.ReadFile(aside[0]); !bytes.Contains(b, []byte("garbage")) {
					t.Fatalf("the journal kept aside holds %q", b)
				}
			} else if len(aside) != 0 || len(asideFiles(t, e.state)) != 0 {
				t.Fatalf("kept aside %v %v for a journal that is not damaged", aside, asideFiles(t, e.state))
			}
		})
	}
}

// TestStateJournalRules: a journal that is a symlink, a FIFO or a
// directory is refused, never followed, read or replaced.
func TestStateJournalRules(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, jpath string)
	}{
		{"symlink", func(t *testing.T, jpath string) {
			testtool.NeedSymlinks(t)
			target := filepath.Join(testtool.TempDir(t), "elsewhere")
			os.WriteFile(target, []byte(`{"journal":1,"base":"x"}`+"\n"), 0o644)
			if err := os.Symlink(target, jpath); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory", func(t *testing.T, jpath string) {
			if err := os.Mkdir(jpath, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, s, _ := hourly50(t)
			jpath := e.state + ".journal"
			os.Remove(jpath)
			tt.make(t, jpath)
			before, _ := os.Lstat(jpath)
			if _, err := schedule.LoadState(e.state); !errors.Is(err, schedule.ErrState) || !strings.Contains(err.Error(), jpath) {
				t.Fatalf("LoadState: %v, want ErrState naming the journal", err)
			}
			e.clock.Add(90 * time.Second)
			s.RunDue(context.Background())
			if after, err := os.Lstat(jpath); err != nil || !os.SameFile(before, after) || after.Mode() != before.Mode() {
				t.Fatal("the journal's name was replaced")
			}
		})
	}
}

// TestStateJournalSharedFile: two schedulers sharing a state file see
// each other's appends: a due time one ran is not run by the other.
func TestStateJournalSharedFile(t *testing.T) {
	e, s1, keys := hourly50(t)
	s2 := e.scheduler()
	e.reload(s2)
	for m := 1; m <= 4; m++ {
		e.clock.Add(time.Minute)
		if m == 1 {
			e.clock.Add(30 * time.Second)
		}
		first, second := s1, s2
		if m%2 == 0 {
			first, second = s2, s1
		}
		first.RunDue(context.Background())
		second.RunDue(context.Background())
		if n := e.count(keys[m]); n != 1 {
			t.Fatalf("job %d ran %d times", m, n)
		}
	}
}

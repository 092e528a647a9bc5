package schedule_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// A run's error is an error the caller tests with
// errors.Is and errors.As (RunResult.Err), not only a string; Error is its
// text, which the state file records (a result read back has no Err).
func TestRunResultErr(t *testing.T) {
	tests := []struct {
		name  string
		store func(t *testing.T, b *storetest.Builder)
		check func(t *testing.T, err error)
		text  string
	}{
		{name: "damaged store", store: func(t *testing.T, b *storetest.Builder) {
			b.File("hab/pkgs/core/a/3/3/DEPS", "core\n")
		}, check: func(t *testing.T, err error) {
			var de *retention.DamagedError
			if !errors.Is(err, retention.ErrDamaged) || !errors.As(err, &de) || len(de.Problems) == 0 {
				t.Errorf("Err %v: not ErrDamaged with its problems", err)
			}
		}},
		{name: "removals failed", store: func(t *testing.T, b *storetest.Builder) {
			// core/a/1/1 cannot be hidden: its VERSION directory is immutable.
			ver := filepath.Dir(b.PkgPath("core/a/1/1"))
			if out, err := exec.Command("chattr", "+i", ver).CombinedOutput(); err != nil {
				t.Skipf("chattr +i (needs root and a file system that has it): %v %s", err, out)
			}
			t.Cleanup(func() { exec.Command("chattr", "-i", ver).Run() })
		}, check: func(t *testing.T, err error) {
			var re *retention.ReleaseError
			if !errors.Is(err, schedule.ErrRemovalsFailed) || !errors.Is(err, fs.ErrPermission) || !errors.As(err, &re) || re.Ident.String() != "core/a/1/1" {
				t.Errorf("Err %v: not ErrRemovalsFailed wrapping core/a/1/1's permission error", err)
			}
		}, text: "1 removal(s) failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			b := hostStore(t)
			b.Old("core/a/1/1", "core/a/2/2", "core/a/3/3")
			tt.store(t, b)
			e.write("p", schedtest.Prune(b.Root, "@hourly-random"))
			s := e.scheduler()
			s.Run = nil // the real prune
			e.reload(s)
			o, err := s.Trigger(context.Background(), s.Jobs()[0].Key)
			if o.Status != schedule.Ran || !errors.Is(err, schedule.ErrRunFailed) || !errors.Is(err, o.Err) {
				t.Fatalf("trigger: %+v, %v; want the run's error", o, err)
			}
			res := o.Result
			if o.Err == nil || res.Error != o.Err.Error() || !o.Failed() {
				t.Fatalf("result: Err %v, Error %q, Failed %v", o.Err, res.Error, o.Failed())
			}
			if tt.text != "" && res.Error != tt.text {
				t.Errorf("Error %q, want %q", res.Error, tt.text)
			}
			tt.check(t, o.Err)
			st, err := schedule.LoadState(e.state)
			if err != nil {
				t.Fatal(err)
			}
			last := st.Jobs[o.Job.Key].LastRun
			if last == nil || last.Result.Error != res.Error {
				t.Errorf("recorded %+v, want the error's text only", last)
			}
		})
	}
}

// A RunFunc's error fails the run, and the state records its text.
func TestRunFuncErrRecorded(t *testing.T) {
	boom := errors.New("boom")
	s, key, e := triggerEnv(t, func(ctx context.Context) (schedule.RunResult, error) {
		return schedule.RunResult{}, fmt.Errorf("pruning: %w", boom)
	})
	o, err := s.Trigger(context.Background(), key)
	if !errors.Is(err, boom) || o.Status != schedule.Ran || !o.Failed() || !errors.Is(o.Err, boom) || o.Result.Error != "pruning: boom" {
		t.Fatalf("outcome %+v, %v", o, err)
	}
	st, err := schedule.LoadState(e.state)
	if err != nil {
		t.Fatal(err)
	}
	if last := st.Jobs[key].LastRun; last == nil || last.Result.Error != "pruning: boom" {
		t.Errorf("recorded %+v", last)
	}
}

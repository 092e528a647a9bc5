package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// listedJob is a job as `schedule list --json` shows it.
type listedJob struct {
	Key     string `json:"key"`
	Store   string `json:"store"`
	Cron    string `json:"cron"`
	Runs    int    `json:"runs"`
	InState bool   `json:"in_state"`
}

// listedJobs runs `schedule list --json` with args and returns its jobs
// by store.
func listedJobs(t *testing.T, args ...string) map[string]listedJob {
	t.Helper()
	code, out, errs := hab(t, nil, append([]string{"schedule", "list", "--json"}, args...)...)
	var l struct{ Jobs []listedJob }
	if err := json.Unmarshal([]byte(out), &l); err != nil || code != 0 {
		t.Fatalf("schedule list %v: exit %d, %v\n%s%s", args, code, err, out, errs)
	}
	jobs := map[string]listedJob{}
	for _, j := range l.Jobs {
		jobs[j.Store] = j
	}
	return jobs
}

// onlyJob is the one job of jobs (listedJobs), failing the test when
// there is not exactly one.
func onlyJob(t *testing.T, jobs map[string]listedJob) listedJob {
	t.Helper()
	if len(jobs) != 1 {
		t.Fatalf("jobs %+v, want one", jobs)
	}
	for _, j := range jobs {
		return j
	}
	return listedJob{}
}

// daemonOnce runs `daemon --once --catch-up-spread 0` with args and
// returns its exit code, stderr and how many jobs it logged as ran.
func daemonOnce(t *testing.T, args ...string) (code int, stderr string, ran int) {
	t.Helper()
	code, _, stderr = hab(t, nil, append([]string{"daemon", "--once", "--catch-up-spread", "0"}, args...)...)
	return code, stderr, strings.Count(stderr, `msg="job ran"`)
}

// stateFiles are the files a daemon keeps its state in, in its own
// directory dir: every regular file there but the lock file.
func stateFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range es {
		if e.Type().IsRegular() && !strings.HasSuffix(e.Name(), ".lock") {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	if len(files) == 0 {
		t.Fatalf("no state file in %s", dir)
	}
	return files
}

// twoReleases is a store holding core/a/1 and core/a/2: a prune keeping
// one removes core/a/1.
func twoReleases(t *testing.T) *storetest.Builder {
	t.Helper()
	b := hostStore(t)
	b.Pkg("core/a/1/20200101000000")
	b.Pkg("core/a/2/20200101000000")
	return b
}

// TestUnrelatedDefinitionKeepsJobTimeAndHistory: without --fs-root and
// --state, a daily prune of one store keeps its time and its history when
// a definition for another FS root is added beside it. The first store's
// FS root has its own machine identity, so a job resolved with another
// (the host's, or none) gets another time.
func TestUnrelatedDefinitionKeepsJobTimeAndHistory(t *testing.T) {
	t.Parallel()
	one := twoReleases(t)
	if err := os.MkdirAll(filepath.Join(one.Root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(one.Root, "etc", "machine-id"), []byte("0123456789abcdef0123456789abcdef\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := hostStore(t)
	dir := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(one.Root, "@daily-random")})
	for _, now := range []string{"2026-06-01T00:00:00Z", "2026-06-04T00:00:00Z"} { // first sight, then a catch-up run
		if code, errs, _ := daemonOnce(t, "--schedules", dir, "--now", now); code != 0 {
			t.Fatalf("daemon --once at %s: exit %d\n%s", now, code, errs)
		}
	}
	job := onlyJob(t, listedJobs(t, "--schedules", dir, "--now", "2026-06-04T00:00:01Z"))
	if job.Runs != 1 || !job.InState {
		t.Fatalf("before: %+v, want one run, in the state", job)
	}
	schedtest.Write(t, dir, "b", "fs_root = "+strconv.Quote(other.Root)+"\n[check]\nschedule = \"@weekly\"\n")
	after := listedJobs(t, "--schedules", dir, "--now", "2026-06-04T00:00:01Z")
	if got := after[job.Store]; got != job {
		t.Errorf("with a definition for another FS root beside it, the job is %+v; it was %+v", got, job)
	}
	// The daemon too, where it cannot write outside the test: with no
	// store at /hab/pkgs, what it does not find there it refuses.
	if _, err := os.Lstat(filepath.FromSlash("/hab/pkgs")); err == nil {
		t.Log("this machine has /hab/pkgs: the daemon is not run")
		return
	}
	if code, errs, ran := daemonOnce(t, "--schedules", dir, "--now", "2026-06-04T00:00:02Z"); code != 0 || ran != 0 {
		t.Fatalf("daemon --once with a definition for another FS root: exit %d, %d job(s) ran (want 0: the prune ran for this due time)\n%s", code, ran, errs)
	}
	if got := listedJobs(t, "--schedules", dir, "--now", "2026-06-04T00:00:03Z")[job.Store]; got != job {
		t.Errorf("after the daemon ran, the job is %+v; it was %+v", got, job)
	}
}

// TestOversizedStateSetAsideJobStillRuns: a state file over 64 MiB (every
// file of the state, whitespace appended: what was there still parses) is
// set aside like any other damage, and a job's due time still runs. The
// job is named (--job, as its exported timer runs it), so that its due
// time runs when the state does not hold it.
func TestOversizedStateSetAsideJobStillRuns(t *testing.T) {
	t.Parallel()
	b := twoReleases(t)
	dir := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(b.Root, "@daily-random")})
	stateDir := testtool.TempDir(t)
	state := filepath.Join(stateDir, "state.json")
	for _, now := range []string{"2026-06-01T00:00:00Z", "2026-06-04T00:00:00Z"} { // first sight, then a catch-up run
		if code, errs, _ := daemonOnce(t, "--schedules", dir, "--state", state, "--now", now); code != 0 {
			t.Fatalf("daemon --once at %s: exit %d\n%s", now, code, errs)
		}
	}
	key := onlyJob(t, listedJobs(t, "--schedules", dir, "--state", state, "--now", "2026-06-04T00:00:01Z")).Key
	b.Pkg("core/a/3/20200101000000") // the next prune removes core/a/2
	pad := bytes.Repeat([]byte(" "), 64<<20+1)
	for _, f := range stateFiles(t, stateDir) {
		fh, err := os.OpenFile(f, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fh.Write(pad)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	code, errs, ran := daemonOnce(t, "--schedules", dir, "--state", state, "--job", key, "--now", "2026-06-06T00:00:00Z")
	if code != 0 || ran != 1 {
		t.Fatalf("daemon --once --job with a state over 64 MiB: exit %d, %d job(s) ran, want 0 and 1\n%s", code, ran, errs)
	}
	if _, err := os.Stat(b.PkgPath("core/a/2/20200101000000")); !os.IsNotExist(err) {
		t.Errorf("core/a/2 not removed by the prune: %v", err)
	}
}

// TestDamagedStateRunsTheDueTimeOnce: a state damaged (garbage in every
// file of it) is set aside; a daily prune whose definition was created
// before its last due time has been due since, and runs it: once, not
// again at the next start.
func TestDamagedStateRunsTheDueTimeOnce(t *testing.T) {
	t.Parallel()
	b := twoReleases(t)
	dir := schedtest.Dir(t, map[string]string{"a": "created = 2026-05-01T00:00:00Z\n" + schedtest.Prune(b.Root, "@daily-random")})
	stateDir := testtool.TempDir(t)
	state := filepath.Join(stateDir, "state.json")
	if code, errs, _ := daemonOnce(t, "--schedules", dir, "--state", state, "--now", "2026-06-01T00:00:00Z"); code != 0 {
		t.Fatalf("daemon --once: exit %d\n%s", code, errs)
	}
	for _, f := range stateFiles(t, stateDir) {
		if err := os.WriteFile(f, []byte("garbage\x00\xff{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, errs, ran := daemonOnce(t, "--schedules", dir, "--state", state, "--now", "2026-06-04T00:00:00Z")
	if code != 0 || ran != 1 {
		t.Fatalf("daemon --once three days later, the state damaged: exit %d, %d job(s) ran, want 0 and 1\n%s", code, ran, errs)
	}
	if _, err := os.Stat(b.PkgPath("core/a/1/20200101000000")); !os.IsNotExist(err) {
		t.Errorf("core/a/1 not removed by the prune: %v", err)
	}
	if code, errs, ran := daemonOnce(t, "--schedules", dir, "--state", state, "--now", "2026-06-04T00:01:00Z"); code != 0 || ran != 0 {
		t.Fatalf("daemon --once a minute later: exit %d, %d job(s) ran, want 0 and 0\n%s", code, ran, errs)
	}
}

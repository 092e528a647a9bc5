package schedule_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// A Supervisor registers a randomized daily prune for each of two
// services on one store, from its own definitions: identical, they are one
// job, which runs once. After an update it triggers a prune and waits for
// it; the trigger counts as the job's due run, so the timed one does not
// run again.
func ExampleScheduler_Trigger() {
	dir, _ := os.MkdirTemp("", "sched")
	defer os.RemoveAll(dir)
	s, _ := pkgstoretest.New(filepath.Join(dir, "fs"))
	old := time.Now().Add(-30 * 24 * time.Hour)
	for _, id := range []string{"core/redis/6.2.5/20210101000000", "core/redis/6.2.6/20210601000000", "core/redis/7.0.0/20220101000000"} {
		s.Add(pkgstoretest.Release{Ident: id, ModTime: old, Target: pkgstore.DefaultTarget()})
	}
	if s.Err() != nil {
		panic(s.Err())
	}
	daily, _ := schedule.ParseSpec("@daily-random")
	params := schedule.Params{KeepLatest: 1, MinAge: retention.NoMinAge}
	prune := schedule.JobDef{Type: schedule.Prune, Spec: daily,
		Params: params}
	redis, err := schedule.NewDefinition("redis", s.Root, time.Time{}, prune)
	if err != nil {
		panic(err)
	}
	nginx, err := schedule.NewDefinition("nginx", s.Root+"/", time.Time{}, prune) // a trailing slash: the same store
	if err != nil {
		panic(err)
	}
	now := time.Now()
	sch := &schedule.Scheduler{StatePath: filepath.Join(dir, "state.json"), Clock: func() time.Time { return now }}
	sch.Register(redis, nginx)
	if _, err := sch.Reload(); err != nil {
		panic(err)
	}
	jobs := sch.Jobs()
	fmt.Println("jobs:", len(jobs), "members:", jobs[0].Members)

	now = now.Add(48 * time.Hour) // the job is due; the Supervisor triggers it first
	out, err := sch.Trigger(context.Background(), jobs[0].Key)
	if err != nil {
		panic(err)
	}
	fmt.Println("triggered:", out.Status, "removed", out.Result.Removed)
	fmt.Println("then due:", len(sch.RunDue(context.Background())))
	// Output:
	// jobs: 1 members: [nginx redis]
	// triggered: ran removed 2
	// then due: 0
}

// A Supervisor registers a daily prune of its store from code, runs the
// scheduler's loop as its daemon would, triggers a prune after an update
// and waits for it, then cancels: the loop returns once any run under way
// has stopped safely (Apply puts back what it hid and deletes nothing
// more).
func Example_triggerAndCancel() {
	dir, _ := os.MkdirTemp("", "sched")
	defer os.RemoveAll(dir)
	s, _ := pkgstoretest.New(filepath.Join(dir, "fs"))
	old := time.Now().Add(-30 * 24 * time.Hour)
	for _, id := range []string{"core/redis/6.2.5/20210101000000", "core/redis/7.0.0/20220101000000"} {
		s.Add(pkgstoretest.Release{Ident: id, ModTime: old, Target: pkgstore.DefaultTarget()})
	}
	if s.Err() != nil {
		panic(s.Err())
	}
	fsRoot, statePath := s.Root, filepath.Join(dir, "state.json")

	daily, _ := schedule.ParseSpec("@daily-random")
	params := schedule.Params{KeepLatest: 1, MinAge: retention.NoMinAge}
	prune := schedule.JobDef{Type: schedule.Prune, Spec: daily,
		Params: params}
	def, err := schedule.NewDefinition("r", fsRoot, time.Time{}, prune)
	if err != nil {
		log.Fatal(err)
	}
	sch := &schedule.Scheduler{StatePath: statePath}
	if err := sch.Register(def); err != nil {
		log.Fatal(err)
	}
	if _, err := sch.Reload(); err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- sch.Loop(ctx, nil, time.Hour) }()
	out, err := sch.Trigger(ctx, sch.Jobs()[0].Key) // now, and wait
	cancel()
	fmt.Println(out.Status, "removed", out.Result.Removed)
	fmt.Println("error", err, "loop", <-stopped)
	// Output:
	// ran removed 1
	// error <nil> loop <nil>
}

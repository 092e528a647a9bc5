package schedule_test

import (
	"context"
	"testing"
	"time"
)

func TestLoopReloadsAndStops(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	e.write("a", prune(root, "@daily-random"))
	s := e.loaded()
	ctx, cancel := context.WithCancel(context.Background())
	reload := make(chan struct{})
	done := make(chan error)
	go func() { done <- s.Loop(ctx, reload, 50*time.Millisecond) }()
	e.write("b", prune(root, "@hourly-random"))
	reload <- struct{}{}
	deadline := time.Now().Add(5 * time.Second)
	for len(s.Jobs()) != 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(s.Jobs()) != 2 {
		t.Fatalf("jobs after reload: %d", len(s.Jobs()))
	}
}

package schedule

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// leafPaths returns the index paths of the fields of t the state file
// records (json tag not "-"), down through structs and pointers to
// structs; time.Time and *time.Time are leaves.
func leafPaths(t reflect.Type, prefix []int, names string, out *[]fieldPath) {
	for i := range t.NumField() {
		f := t.Field(i)
		if tag := f.Tag.Get("json"); tag == "-" || !f.IsExported() {
			continue
		}
		p := append(append([]int{}, prefix...), i)
		name := names + "." + f.Name
		ft := f.Type
		if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct && ft.Elem() != reflect.TypeOf(time.Time{}) {
			*out = append(*out, fieldPath{p, name + "(nil)", true})
			leafPaths(ft.Elem(), p, name, out)
			continue
		}
		if ft.Kind() == reflect.Struct && ft != reflect.TypeOf(time.Time{}) {
			leafPaths(ft, p, name, out)
			continue
		}
		if ft.Kind() == reflect.Pointer {
			*out = append(*out, fieldPath{p, name + "(nil)", true})
		}
		*out = append(*out, fieldPath{p, name, false})
	}
}

type fieldPath struct {
	index []int
	name  string
	toNil bool // set the pointer at index to nil instead of changing it
}

// change changes the field at p in v (a struct, its pointers set).
func change(t *testing.T, v reflect.Value, p fieldPath) {
	for n, i := range p.index {
		v = v.Field(i)
		if n == len(p.index)-1 && p.toNil {
			v.SetZero()
			return
		}
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
	}
	switch {
	case v.Type() == reflect.TypeOf(time.Time{}):
		v.Set(reflect.ValueOf(v.Interface().(time.Time).Add(time.Second)))
	case v.Kind() == reflect.String:
		v.SetString(v.String() + "x")
	case v.Kind() == reflect.Int, v.Kind() == reflect.Int64:
		v.SetInt(v.Int() + 1)
	case v.Kind() == reflect.Bool:
		v.SetBool(!v.Bool())
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		v.Set(reflect.Append(v, reflect.ValueOf("x")))
	default:
		t.Fatalf("%s: a %s the test cannot change: teach it", p.name, v.Type())
	}
}

// TestStateEqualSeesEveryField: the comparisons that decide what an
// update writes to the journal (jobStateEqual, scheduleStateEqual) see a
// change of every field the state file records; a field they missed
// would be a change never written.
func TestStateEqualSeesEveryField(t *testing.T) {
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	job := func() *JobState {
		d := at
		return &JobState{Type: Prune, Store: "/s", Spec: "@daily", Cron: "1 2 * * *", Owner: "a", Members: []string{"a"},
			Since: at, LastDue: &d, Runs: 1, LastError: "e",
			LastRun: &RunRecord{Due: at, Start: at, End: at, Result: RunResult{OK: true, Problems: 1, Removed: 1, BytesFreed: 1,
				Error: "e", HistoryError: "h", Notice: "n", FreeBefore: 1, FreeAfter: 1}},
			Claim:   &Claim{Due: at, Host: "h", PID: 1, Since: at, Scheduler: "s"},
			CatchUp: &CatchUp{Due: at, At: at}}
	}
	sched := func() *ScheduleState {
		g := at
		return &ScheduleState{FirstSeen: at, File: "f", Gone: &g}
	}
	tests := []struct {
		name  string
		make  func() any
		equal func(a, b any) bool
	}{
		{"JobState", func() any { return job() }, func(a, b any) bool { return jobStateEqual(a.(*JobState), b.(*JobState)) }},
		{"ScheduleState", func() any { return sched() }, func(a, b any) bool { return scheduleStateEqual(*a.(*ScheduleState), *b.(*ScheduleState)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var paths []fieldPath
			leafPaths(reflect.TypeOf(tt.make()).Elem(), nil, tt.name, &paths)
			if len(paths) < 4 {
				t.Fatalf("only %d fields found", len(paths))
			}
			a := tt.make()
			if !tt.equal(a, tt.make()) {
				t.Fatal("two equal values compare unequal")
			}
			ja, _ := json.Marshal(a)
			for _, p := range paths {
				b := tt.make()
				change(t, reflect.ValueOf(b).Elem(), p)
				jb, _ := json.Marshal(b)
				if bytes.Equal(ja, jb) {
					t.Errorf("%s: changing it did not change the encoding: the test is wrong", p.name)
					continue
				}
				if tt.equal(a, b) {
					t.Errorf("%s changed, but the comparison sees no change: it would never be written", strings.TrimPrefix(p.name, "."))
				}
			}
		})
	}
}

// TestReloadForgetsGoneJobs (issue 32 item 8): what a Scheduler keeps by
// job key (a store's absence, a catch-up time) is dropped for the jobs a
// Reload leaves out: definitions that come and go do not grow it.
func TestReloadForgetsGoneJobs(t *testing.T) {
	dir := testtool.TempDir(t)
	if err := os.MkdirAll(filepath.Join(dir, "root", "hab", "pkgs"), 0o755); err != nil {
		t.Fatal(err)
	}
	sp, err := ParseSpec("17 * * * *")
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDefinition("a", filepath.Join(dir, "root"), time.Time{}, JobDef{Type: Check, Spec: sp})
	if err != nil {
		t.Fatal(err)
	}
	s := &Scheduler{StatePath: filepath.Join(dir, "state.json")}
	if err := s.Register(d); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	key := s.Jobs()[0].Key
	s.umu.Lock()
	s.absent = map[string]*absence{key: {why: "x"}, "gone": {why: "x"}}
	s.catchUp = map[string]time.Time{key: {}, "gone": {}}
	s.umu.Unlock()
	if _, err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	s.umu.Lock()
	defer s.umu.Unlock()
	if len(s.absent) != 1 || s.absent[key] == nil || len(s.catchUp) != 1 {
		t.Fatalf("after the reload: absent %v, catch-up %v; want the live job's only", s.absent, s.catchUp)
	}
}

package schedule

import (
	"maps"
	"slices"
	"time"
)

// cloneState returns a copy of st that shares nothing a caller may change
// with it: new maps, new JobStates and new values behind their pointers
// (one allocation per kind, not per job). Members slices are shared: they
// are replaced, never changed in place. The state the scheduler keeps of
// its file (Scheduler.disk) is cloned for every update and read, so that
// what a caller changes (and an update that is not saved) never reaches
// it.
func cloneState(st *State) *State {
	c := &State{Version: st.Version, Machine: st.Machine,
		Schedules: make(map[string]ScheduleState, len(st.Schedules)),
		Jobs:      make(map[string]*JobState, len(st.Jobs))}
	if st.StoreIDs != nil {
		c.StoreIDs = maps.Clone(st.StoreIDs)
	}
	var gone int
	for _, ss := range st.Schedules {
		if ss.Gone != nil {
			gone++
		}
	}
	gones := make([]time.Time, 0, gone)
	for k, ss := range st.Schedules {
		if ss.Gone != nil {
			gones = append(gones, *ss.Gone)
			ss.Gone = &gones[len(gones)-1]
		}
		c.Schedules[k] = ss
	}
	var dues, runs, claims, catchUps int
	for _, js := range st.Jobs {
		if js == nil {
			continue
		}
		if js.LastDue != nil {
			dues++
		}
		if js.LastRun != nil {
			runs++
		}
		if js.Claim != nil {
			claims++
		}
		if js.CatchUp != nil {
			catchUps++
		}
	}
	jobs := make([]JobState, 0, len(st.Jobs))
	dueSlab := make([]time.Time, 0, dues)
	runSlab := make([]RunRecord, 0, runs)
	claimSlab := make([]Claim, 0, claims)
	catchSlab := make([]CatchUp, 0, catchUps)
	for k, js := range st.Jobs {
		if js == nil {
			c.Jobs[k] = nil
			continue
		}
		jobs = append(jobs, *js)
		n := &jobs[len(jobs)-1]
		if js.LastDue != nil {
			dueSlab = append(dueSlab, *js.LastDue)
			n.LastDue = &dueSlab[len(dueSlab)-1]
		}
		if js.LastRun != nil {
			runSlab = append(runSlab, *js.LastRun)
			n.LastRun = &runSlab[len(runSlab)-1]
		}
		if js.Claim != nil {
			claimSlab = append(claimSlab, *js.Claim)
			n.Claim = &claimSlab[len(claimSlab)-1]
		}
		if js.CatchUp != nil {
			catchSlab = append(catchSlab, *js.CatchUp)
			n.CatchUp = &catchSlab[len(catchSlab)-1]
		}
		c.Jobs[k] = n
	}
	return c
}

// recorded returns the state as the file records it, in maps of its own
// but sharing st's values: a JobState with what the file does not record
// (a run's plan report, problems, error value) is copied without it.
// Neither st's values nor the result's may then be changed in place
// (entries are replaced), as for the state in memory (Scheduler.view).
func (st *State) recorded() *State {
	c := &State{Version: st.Version, Machine: st.Machine, Schedules: maps.Clone(st.Schedules),
		Jobs: make(map[string]*JobState, len(st.Jobs))}
	if st.StoreIDs != nil {
		c.StoreIDs = maps.Clone(st.StoreIDs)
	}
	if c.Schedules == nil {
		c.Schedules = map[string]ScheduleState{}
	}
	for k, js := range st.Jobs {
		if js != nil && js.LastRun != nil {
			if r := js.LastRun.Result; r.Plan != nil || r.ProblemList != nil || r.Err != nil {
				js = copyJobState(js)
				js.LastRun.Result.Plan, js.LastRun.Result.ProblemList, js.LastRun.Result.Err = nil, nil, nil
			}
		}
		c.Jobs[k] = js
	}
	return c
}

// shallow is a copy of st with maps of its own and st's values.
func (st *State) shallow() *State {
	c := &State{Version: st.Version, Machine: st.Machine, Schedules: maps.Clone(st.Schedules), Jobs: maps.Clone(st.Jobs)}
	if st.StoreIDs != nil {
		c.StoreIDs = maps.Clone(st.StoreIDs)
	}
	return c
}

// copyJobState is a copy of js that shares nothing a caller may change
// with it (but Members, see cloneState).
func copyJobState(js *JobState) *JobState {
	c := *js
	if js.LastDue != nil {
		d := *js.LastDue
		c.LastDue = &d
	}
	if js.LastRun != nil {
		r := *js.LastRun
		c.LastRun = &r
	}
	if js.Claim != nil {
		cl := *js.Claim
		c.Claim = &cl
	}
	if js.CatchUp != nil {
		cu := *js.CatchUp
		c.CatchUp = &cu
	}
	return &c
}

// journalRecord is one line of the state's journal after its header: the
// jobs and schedules an update changed, each as it now is (null: removed).
type journalRecord struct {
	Jobs      map[string]*JobState      `json:"jobs,omitempty"`
	Schedules map[string]*ScheduleState `json:"schedules,omitempty"`
}

func (r *journalRecord) empty() bool { return len(r.Jobs) == 0 && len(r.Schedules) == 0 }

// apply brings st up to date with the record.
func (r *journalRecord) apply(st *State) {
	for k, js := range r.Jobs {
		if js == nil {
			delete(st.Jobs, k)
		} else {
			st.Jobs[k] = js
		}
	}
	for k, ss := range r.Schedules {
		if ss == nil {
			delete(st.Schedules, k)
		} else {
			st.Schedules[k] = *ss
		}
	}
}

// diffState returns what changed from old (the state as its files hold
// it) to st, as a journal record; full when a change is not one a record
// holds (the version, the machine identity, the store identities): the
// whole state must then be written.
func diffState(old, st *State) (rec journalRecord, full bool) {
	if old.Version != st.Version || old.Machine != st.Machine || !maps.Equal(old.StoreIDs, st.StoreIDs) {
		return rec, true
	}
	for k, js := range st.Jobs {
		if o, ok := old.Jobs[k]; !ok || !jobStateEqual(o, js) {
			if rec.Jobs == nil {
				rec.Jobs = map[string]*JobState{}
			}
			rec.Jobs[k] = js
		}
	}
	for k := range old.Jobs {
		if _, ok := st.Jobs[k]; !ok {
			if rec.Jobs == nil {
				rec.Jobs = map[string]*JobState{}
			}
			rec.Jobs[k] = nil
		}
	}
	for k, ss := range st.Schedules {
		if o, ok := old.Schedules[k]; !ok || !scheduleStateEqual(o, ss) {
			if rec.Schedules == nil {
				rec.Schedules = map[string]*ScheduleState{}
			}
			ss := ss
			rec.Schedules[k] = &ss
		}
	}
	for k := range old.Schedules {
		if _, ok := st.Schedules[k]; !ok {
			if rec.Schedules == nil {
				rec.Schedules = map[string]*ScheduleState{}
			}
			rec.Schedules[k] = nil
		}
	}
	return rec, false
}

// partialState is the State updateJobs gives its f: copies of the jobs
// of st with keys (those it holds), and no schedules.
func partialState(st *State, keys []string) *State {
	p := &State{Version: st.Version, Machine: st.Machine, Jobs: make(map[string]*JobState, len(keys))}
	if st.StoreIDs != nil {
		p.StoreIDs = maps.Clone(st.StoreIDs)
	}
	for _, k := range keys {
		if js := st.Jobs[k]; js != nil {
			p.Jobs[k] = copyJobState(js)
		}
	}
	return p
}

// diffJobs is diffState for a partialState of old with keys: only those
// jobs (and any f added) are compared.
func diffJobs(old, p *State, keys []string) (rec journalRecord, full bool) {
	if old.Version != p.Version || old.Machine != p.Machine || !maps.Equal(old.StoreIDs, p.StoreIDs) || len(p.Schedules) > 0 {
		return rec, true
	}
	note := func(k string, js *JobState) {
		if rec.Jobs == nil {
			rec.Jobs = map[string]*JobState{}
		}
		rec.Jobs[k] = js
	}
	for _, k := range keys {
		js, in := p.Jobs[k]
		o, was := old.Jobs[k]
		switch {
		case !in && was && o != nil:
			note(k, nil) // removed
		case in && (!was || !jobStateEqual(o, js)):
			note(k, js)
		}
	}
	for k, js := range p.Jobs {
		if _, listed := rec.Jobs[k]; listed || slices.Contains(keys, k) {
			continue
		}
		if o, was := old.Jobs[k]; !was || !jobStateEqual(o, js) {
			note(k, js)
		}
	}
	return rec, false
}

// The comparisons below compare every field the state file records
// (TestStateEqualSeesEveryField changes each in turn): a field they
// missed would be a change never written.

func timePtrEqual(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

func scheduleStateEqual(a, b ScheduleState) bool {
	return a.FirstSeen.Equal(b.FirstSeen) && a.File == b.File && timePtrEqual(a.Gone, b.Gone)
}

func jobStateEqual(a, b *JobState) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Type == b.Type && a.Store == b.Store && a.Spec == b.Spec && a.Cron == b.Cron && a.Owner == b.Owner &&
		slices.Equal(a.Members, b.Members) && (a.Members == nil) == (b.Members == nil) &&
		a.Since.Equal(b.Since) && timePtrEqual(a.LastDue, b.LastDue) && runRecordEqual(a.LastRun, b.LastRun) &&
		a.Runs == b.Runs && a.LastError == b.LastError && claimEqual(a.Claim, b.Claim) && catchUpEqual(a.CatchUp, b.CatchUp)
}

func runRecordEqual(a, b *RunRecord) bool {
	if a == nil || b == nil {
		return a == b
	}
	ra, rb := a.Result, b.Result
	return a.Due.Equal(b.Due) && a.Start.Equal(b.Start) && a.End.Equal(b.End) &&
		ra.OK == rb.OK && ra.Problems == rb.Problems && ra.Removed == rb.Removed && ra.BytesFreed == rb.BytesFreed &&
		ra.Error == rb.Error && ra.HistoryError == rb.HistoryError && ra.Notice == rb.Notice &&
		ra.FreeBefore == rb.FreeBefore && ra.FreeAfter == rb.FreeAfter &&
		// Not recorded, but a run that has them is a new run.
		ra.Err == rb.Err && ra.Plan == rb.Plan && len(ra.ProblemList) == len(rb.ProblemList)
}

func claimEqual(a, b *Claim) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Due.Equal(b.Due) && a.Host == b.Host && a.PID == b.PID && a.Since.Equal(b.Since) && a.Scheduler == b.Scheduler
}

func catchUpEqual(a, b *CatchUp) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Due.Equal(b.Due) && a.At.Equal(b.At)
}

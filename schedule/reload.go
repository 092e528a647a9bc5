package schedule

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// goneGrace is how long a schedule whose definition went is kept, so that
// an editor's save or a deploy replacing files is not a deletion.
const goneGrace = 10 * time.Minute

// Reload reads the definitions again and brings the state up to date.
// Rejected files are returned as problems and keep their schedules' state;
// err is set only when the state cannot be read or written.
func (s *Scheduler) Reload() (problems []error, err error) {
	if !s.hasState() {
		return nil, ErrNoStatePath
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	defs, errs := s.definitions()
	for _, e := range errs {
		if errors.Is(e, errNoDir) {
			// Not "no definitions": a deploy may be swapping it.
			s.log().Error("schedules directory unreadable; every schedule and job is kept as it was", "error", e)
			return errs, nil
		}
	}
	rejected, waiting := s.rejectedFiles(errs)
	s.mu.Lock()
	s.waiting = waiting
	s.mu.Unlock()
	now := s.now()
	s.umu.Lock()
	if s.started.IsZero() {
		s.started = now
	}
	s.umu.Unlock()
	s.mu.RLock()
	mem := s.view
	s.mu.RUnlock()
	p := &reloadPass{s: s, defs: defs, rejected: rejected, mem: mem, now: now, roots: map[string]string{}}
	s.smu.Lock()
	for _, d := range defs {
		p.roots[d.Name] = rootOf(d.FSRoot)
		if s.roots == nil {
			s.roots = map[string]bool{}
		}
		s.roots[p.roots[d.Name]] = true
	}
	s.smu.Unlock()
	if err := s.reloadState(p.apply); err != nil {
		return errs, err
	}
	if p.err != nil {
		return errs, p.err
	}
	crons, err := s.cronsOf(p.jobs)
	if err != nil {
		return errs, err
	}
	s.install(p, crons)
	return errs, nil
}

// rejectedFiles logs each rejected definition and returns their files
// and the stores whose absence rejected one.
func (s *Scheduler) rejectedFiles(errs []error) (rejected map[string]bool, waiting []string) {
	rejected = map[string]bool{}
	for _, e := range errs {
		s.log().Error("schedule definition rejected", "error", e)
		var de *DefinitionError
		if errors.As(e, &de) {
			rejected[de.File] = true
			if de.missingStore != "" {
				waiting = append(waiting, de.missingStore)
			}
		}
	}
	return rejected, waiting
}

// reloadPass is one Reload's update of the state. apply may run twice (a
// state that could not be written is brought up to date as it reads).
type reloadPass struct {
	s        *Scheduler
	defs     []Definition
	rejected map[string]bool
	mem      *stateFile // a job the file lost is taken from it, not made new
	now      time.Time
	lost     bool              // a state file was set aside
	roots    map[string]string // by definition name

	jobs, pjobs []Job
	view        *stateFile
	machines    map[string]string // by canonical FS root
	err         error
}

func (p *reloadPass) apply(st *stateFile) bool {
	s := p.s
	p.lost = s.lost
	now := s.stamp(st, p.now)
	p.markSchedules(st, now)
	created := func(d Definition) time.Time {
		if !d.Created.IsZero() {
			return d.Created
		}
		return st.Schedules[d.Name].FirstSeen
	}
	if p.machines, p.err = p.keepMachines(st); p.err != nil {
		return false
	}
	p.jobs = buildJobs(p.defs, func(r string) string { return p.machines[r] }, s.Location, created, storeIDs(st))
	p.pjobs = buildPressureJobs(p.defs, created)
	live := p.mergeJobs(st, now)
	names := map[string]bool{}
	for _, d := range p.defs {
		names[d.Name] = true
	}
	held := p.heldSchedules(st, names, now)
	for k, js := range st.Jobs {
		if live[k] || slices.ContainsFunc(js.Members, func(m string) bool { return held[m] }) {
			continue
		}
		delete(st.Jobs, k)
	}
	for n := range st.Schedules {
		if !names[n] && !held[n] {
			delete(st.Schedules, n)
		}
	}
	p.view = st
	return true
}

// stamp is when a Reload first sees a schedule or job: now, or the
// state's latest time while the clock is obviously wrong.
func (s *Scheduler) stamp(st *stateFile, now time.Time) time.Time {
	if s.clockWrong(st, now) == "" {
		return now
	}
	if l := latestRecord(st); l.After(now) {
		return l
	}
	return now
}

func (p *reloadPass) markSchedules(st *stateFile, now time.Time) {
	s := p.s
	for _, d := range p.defs {
		ss, ok := st.Schedules[d.Name]
		if !ok && p.mem != nil {
			s.mu.RLock()
			ss, ok = p.mem.Schedules[d.Name]
			s.mu.RUnlock()
		}
		if !ok {
			ss = scheduleRecord{FirstSeen: now}
			if p.lost {
				ss.FirstSeen = definedAt(d, now)
			}
		}
		ss.File, ss.FSRoot, ss.Gone = d.File, p.roots[d.Name], nil
		st.Schedules[d.Name] = ss
	}
}

// keepMachines settles each FS root's identity for randomized times: the
// recorded one, unless there is none or Machine gives another.
func (p *reloadPass) keepMachines(st *stateFile) (map[string]string, error) {
	s := p.s
	ids := map[string]string{}
	for _, root := range p.roots {
		if _, ok := ids[root]; ok {
			continue
		}
		id := st.Machines[root]
		if id == "" && s.Machine == "" && p.mem != nil {
			id = p.mem.Machines[root]
		}
		if id == "" || s.Machine != "" && id != s.Machine {
			want, err := machineID(root, s.Machine)
			if err != nil {
				return nil, err
			}
			if id != "" {
				s.log().Info("the identity randomized times are drawn with changes: every randomized job's time moves", "fs_root", root, "from", id, "to", want)
			}
			id = want
		}
		st.Machines[root] = id
		ids[root] = id
	}
	return ids, nil
}

// mergeJobs gives each job its state: the file's, the memory's when its
// anchor is later, or a new one.
func (p *reloadPass) mergeJobs(st *stateFile, now time.Time) map[string]bool {
	s := p.s
	live := map[string]bool{}
	for _, j := range p.jobs {
		live[j.Key] = true
		js := st.Jobs[j.Key]
		if p.mem != nil {
			s.mu.RLock()
			if m := p.mem.Jobs[j.Key]; m != nil && (js == nil || anchor(m).After(anchor(js))) {
				c := *m
				js = &c
				st.Jobs[j.Key] = js
			}
			s.mu.RUnlock()
		}
		if js == nil {
			js = &jobState{Since: s.since(j, now)}
			if p.lost {
				js.Since = lostSince(st, j, js.Since)
			}
			st.Jobs[j.Key] = js
		}
		js.Type, js.Store, js.FSRoot, js.Spec, js.Cron, js.Owner, js.Members = j.Type, j.Store, j.root, j.Spec.Raw, j.Cron, j.Owner, j.Members
	}
	return live
}

// heldSchedules returns the schedules kept although no definition names
// them: a rejected file's, another directory's, and those gone for less
// than goneGrace.
func (p *reloadPass) heldSchedules(st *stateFile, names map[string]bool, now time.Time) map[string]bool {
	s := p.s
	held := map[string]bool{}
	var foreign []string
	for n, ss := range st.Schedules {
		stem := filepath.Join(s.Dir, n+".toml")
		switch {
		case names[n]:
		case p.rejected[ss.File] || p.rejected[stem]:
			held[n] = true
		case !s.ours(ss):
			held[n] = true
			foreign = append(foreign, n)
		case ss.Gone == nil || now.Before(*ss.Gone):
			g := now
			ss.Gone = &g
			st.Schedules[n] = ss
			held[n] = true
		case now.Sub(*ss.Gone) < goneGrace:
			held[n] = true
		}
	}
	if len(foreign) > 0 {
		slices.Sort(foreign)
		s.log().Warn("the state file also holds schedules this daemon's directory does not define (another hab-gc's, sharing it); they are kept: give each daemon its own --state",
			"state", s.statePlace(), "schedules", foreign)
	}
	return held
}

// reloadState runs update on the state and saves it; with ReadOnly, or
// when the state cannot be written (a full disk), in memory only.
func (s *Scheduler) reloadState(update func(*stateFile) bool) error {
	if s.ReadOnly {
		st, err := s.load()
		if err == nil {
			update(st)
		}
		return err
	}
	err := s.update(update)
	if err != nil && (!errors.Is(err, errState) || errors.Is(err, errCorruptState)) {
		s.log().Error("the state file cannot be written; running with the state in memory: runs are not recorded across restarts", "state", s.statePlace(), "error", err)
		var st *stateFile
		if st, err = s.load(); err == nil {
			update(st)
		}
	}
	return err
}

func (s *Scheduler) cronsOf(jobs []Job) (map[string]*cronSpec, error) {
	crons := map[string]*cronSpec{}
	for _, j := range jobs {
		c, err := newCron(j.Cron, j.Spec.Zone(s.Location))
		if err != nil {
			return nil, err
		}
		crons[j.Key] = c
	}
	return crons, nil
}

func (s *Scheduler) install(p *reloadPass, crons map[string]*cronSpec) {
	s.mu.Lock()
	s.jobs, s.crons, s.view, s.pressure, s.machines = p.jobs, crons, p.view, p.pjobs, p.machines
	s.mu.Unlock()
	if p.lost {
		s.smu.Lock()
		s.lost = false
		s.smu.Unlock()
	}
	s.forgetGone(p.jobs, p.pjobs)
}

// forgetGone drops what is kept of the jobs a Reload left out but their
// run slots, which a run may hold.
func (s *Scheduler) forgetGone(jobs ...[]Job) {
	live := map[string]bool{}
	for _, js := range jobs {
		for _, j := range js {
			live[j.Key] = true
		}
	}
	s.umu.Lock()
	defer s.umu.Unlock()
	for k := range s.absent {
		if !live[k] {
			delete(s.absent, k)
		}
	}
	for k := range s.catchUp {
		if !live[k] {
			delete(s.catchUp, k)
		}
	}
}

// ours reports whether a schedule is this scheduler's to remove:
// registered in code, or from a file of Dir.
func (s *Scheduler) ours(ss scheduleRecord) bool {
	if ss.File == "" {
		return true
	}
	if s.Dir == "" {
		return false
	}
	a, err1 := filepath.Abs(filepath.Dir(ss.File))
	b, err2 := filepath.Abs(s.Dir)
	return err1 != nil || err2 != nil || a == b
}

// since is when a new job begins: now, so it does not run at once; for
// Only (an exported timer's first firing) just before its latest due time,
// so that the firing runs.
func (s *Scheduler) since(j Job, now time.Time) time.Time {
	if s.Only == "" || j.Key != s.Only {
		return now
	}
	c, err := newCron(j.Cron, j.Spec.Zone(s.Location))
	if err != nil {
		return now
	}
	if d, ok := c.Prev(now); ok {
		return d.Add(-time.Nanosecond)
	}
	return now
}

func (s *Scheduler) storeAppeared() bool {
	s.mu.RLock()
	waiting := s.waiting
	s.mu.RUnlock()
	for _, p := range waiting {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// definedAt is when a definition existed from, for a lost state: created,
// else its file's mtime, never after now.
func definedAt(d Definition, now time.Time) time.Time {
	t := now
	if !d.Created.IsZero() {
		t = d.Created
	} else if fi, err := os.Stat(d.File); d.File != "" && err == nil {
		t = fi.ModTime()
	}
	if t.After(now) {
		return now
	}
	return t.Round(0)
}

// lostSince is when a job of a lost state begins: at its oldest
// definition, so that its last due time since runs once.
func lostSince(st *stateFile, j Job, since time.Time) time.Time {
	for _, m := range j.Members {
		if ss, ok := st.Schedules[m]; ok && ss.FirstSeen.Before(since) {
			since = ss.FirstSeen
		}
	}
	return since
}

package schedule

import (
	"fmt"
	"os"
	"time"
)

// Claim is a due time a scheduler took, under the state's lock, before
// running it: another scheduler sharing the state file does not run that
// due time meanwhile. A check holds the store's lock only shared, so the
// claim is what keeps two schedulers from checking one due time twice.
type Claim struct {
	Due   time.Time `json:"due"`
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
	// Scheduler names the Scheduler (in that process) that claimed it.
	Scheduler string `json:"scheduler,omitempty"`
}

// claim is js's claim (nil for a nil js).
func (js *JobState) claim() *Claim {
	if js == nil {
		return nil
	}
	return js.Claim
}

// claimTTL is how long a claim of another machine (whose process cannot
// be looked at) holds: longer than any check.
const claimTTL = 24 * time.Hour

func newClaim(due, now time.Time, scheduler string) *Claim {
	host, _ := os.Hostname()
	return &Claim{Due: due, Host: host, PID: os.Getpid(), Since: now, Scheduler: scheduler}
}

// alive reports whether the claim's scheduler may still be running it: a
// process of this machine that exists, or another machine's claim younger
// than claimTTL.
func (c *Claim) alive(now time.Time) bool {
	if age := now.Sub(c.Since); age > claimTTL || age < -time.Hour {
		return false
	}
	if host, _ := os.Hostname(); host != c.Host {
		return true
	}
	return processExists(c.PID)
}

func (c *Claim) String() string {
	return fmt.Sprintf("claimed by process %d on %s at %s", c.PID, c.Host, c.Since.UTC().Format(time.RFC3339))
}

// claimIn claims a due time of a job in the state (see Claim), or says
// why it must not run: it ran, or another scheduler runs it (a check; a
// prune holds the store's lock exclusive, so a claim it finds is stale).
// changed: the state must be saved.
func (s *Scheduler) claimIn(st *State, j Job, due time.Time) (skip string, changed bool) {
	js := st.Jobs[j.Key]
	if js == nil {
		if m, ok := s.memJob(j.Key); ok {
			js = &m // restored
			st.Jobs[j.Key] = js
		}
	}
	now := s.now()
	c := js.claim()
	switch {
	case js == nil || (js.LastDue != nil && !js.LastDue.Before(due)):
		return SkippedAlreadyRan, false
	case c != nil && c.Scheduler == s.token() && c.Due.Equal(due):
		return "", false // claimed already (for the whole tick)
	case j.Type == Check && c != nil && !c.Due.Before(due) && c.alive(now):
		return skippedRunning + " (" + c.String() + ")", false
	}
	js.Claim = newClaim(due, now, s.token())
	return "", true
}

// claimAll claims the due times of a tick's runs in one write of the
// state, and returns the outcomes of those that must not run; the others
// start without writing the state again.
func (s *Scheduler) claimAll(byStore map[string][]pendingRun) []RunOutcome {
	var outs []RunOutcome
	var keys []string
	for _, runs := range byStore {
		for _, r := range runs {
			keys = append(keys, r.j.Key)
		}
	}
	err := s.updateJobs(keys, func(st *State) bool {
		outs = nil
		changed := false
		for store, runs := range byStore {
			keep := runs[:0:0]
			for _, r := range runs {
				skip, ch := s.claimIn(st, r.j, r.due)
				changed = changed || ch
				if skip != "" {
					outs = append(outs, RunOutcome{Job: r.j, Due: r.due, Skipped: skip})
					continue
				}
				keep = append(keep, r)
			}
			byStore[store] = keep
		}
		return changed
	})
	if err != nil {
		s.log().Debug("claiming the tick's runs", "error", err) // each run tries again
	}
	return outs
}

// token names this Scheduler in its claims.
func (s *Scheduler) token() string { return fmt.Sprintf("%d-%p", os.Getpid(), s) }

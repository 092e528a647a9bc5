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

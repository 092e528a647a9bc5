package schedule

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// keepAside renames a damaged state file (ErrCorruptState: why) to
// PATH.corrupt-TIME, a name that did not exist (never over an earlier one),
// for the operator, says so at ERROR, and returns an empty state for the
// caller to rebuild (from the Scheduler's memory: Reload, restore). It is
// called under the state's lock.
func (s *Scheduler) keepAside(path string, why error) (*State, error) {
	stamp := s.now().UTC().Format("20060102T150405Z")
	for i := 0; i < 100; i++ {
		aside := path + ".corrupt-" + stamp
		if i > 0 {
			aside += fmt.Sprintf("-%d", i)
		}
		// A hard link never replaces an existing name; the damaged name
		// goes only once the link holds its bytes.
		err := os.Link(path, aside)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w (keeping it aside as %s: %v)", why, aside, err)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("%w (kept aside as %s, but not removed: %v)", why, aside, err)
		}
		// The journal too (it may be what is damaged), under a name of
		// its own: PATH.journal.corrupt-TIME.
		jpath := journalPath(path)
		if fi, err := os.Lstat(jpath); err == nil && fi.Mode().IsRegular() {
			jaside := jpath + aside[len(path):]
			if err := os.Link(jpath, jaside); err != nil {
				return nil, fmt.Errorf("%w (keeping its journal aside as %s: %v)", why, jaside, err)
			}
			if err := os.Remove(jpath); err != nil {
				return nil, fmt.Errorf("%w (its journal kept aside as %s, but not removed: %v)", why, jaside, err)
			}
		}
		s.log().Error("the schedule state file is damaged; it is kept aside for inspection and rebuilt from what this hab-gc knows (jobs it does not know start anew: none runs at once)",
			"state", path, "kept_as", aside, "error", why)
		return newState(), nil
	}
	return nil, fmt.Errorf("%w (no free name to keep it aside)", why)
}

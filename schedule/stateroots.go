package schedule

import (
	"path/filepath"
)

// Beside the stores (Scheduler.StateBesideStores), the state is one file
// per FS root, read as one State (merge) and written back divided by FS
// root (split): each job and schedule records the canonical FS root it
// belongs to, so that a definition added for another FS root never moves
// a job's history, nor the identity its time is drawn with.

// origins records the file each entry of a merged State was read from:
// an entry that names no FS root it belongs to goes back there.
type origins map[string]string

func jobOrigin(key string) string    { return "job\x00" + key }
func schedOrigin(name string) string { return "schedule\x00" + name }
func idOrigin(store string) string   { return "store\x00" + store }

// merge adds part, read from path, to st. A job two files hold (a write
// of both cut short) is the one run later.
func (o origins) merge(st, part *State, path string) {
	for r, m := range part.Machines {
		if st.Machines == nil {
			st.Machines = map[string]string{}
		}
		if _, ok := st.Machines[r]; !ok {
			st.Machines[r] = m
		}
	}
	for n, ss := range part.Schedules {
		if _, ok := st.Schedules[n]; !ok {
			st.Schedules[n] = ss
			o[schedOrigin(n)] = path
		}
	}
	for k, v := range part.StoreIDs {
		if _, ok := st.StoreIDs[k]; !ok {
			if st.StoreIDs == nil {
				st.StoreIDs = map[string]string{}
			}
			st.StoreIDs[k] = v
			o[idOrigin(k)] = path
		}
	}
	for k, js := range part.Jobs {
		if had := st.Jobs[k]; had == nil || anchor(js).After(anchor(had)) {
			st.Jobs[k] = js
			o[jobOrigin(k)] = path
		}
	}
}

// split divides st among the files of roots (path to FS root): each entry
// to the file of the FS root it records, else to the file it was read
// from; an entry with neither is dropped.
func (o origins) split(st *State, roots map[string]string) map[string]*State {
	byRoot := map[string]string{}
	for p, r := range roots {
		byRoot[r] = p
	}
	parts := map[string]*State{}
	part := func(root, from string) *State {
		p, ok := byRoot[root]
		if !ok {
			p = from
		}
		if _, ok := roots[p]; !ok {
			return nil
		}
		if parts[p] == nil {
			parts[p] = newState()
		}
		return parts[p]
	}
	for r, m := range st.Machines {
		if pt := part(r, ""); pt != nil {
			if pt.Machines == nil {
				pt.Machines = map[string]string{}
			}
			pt.Machines[r] = m
		}
	}
	for n, ss := range st.Schedules {
		if pt := part(ss.FSRoot, o[schedOrigin(n)]); pt != nil {
			pt.Schedules[n] = ss
		}
	}
	storeRoot := map[string]string{}
	for k, js := range st.Jobs {
		if pt := part(js.FSRoot, o[jobOrigin(k)]); pt != nil {
			pt.Jobs[k] = js
			storeRoot[js.Store] = js.FSRoot
		}
	}
	for k, v := range st.StoreIDs {
		root, ok := storeRoot[k] // a moved store's jobs record where it is now
		if !ok {
			root = storeRoot[v]
		}
		if pt := part(root, o[idOrigin(k)]); pt != nil {
			if pt.StoreIDs == nil {
				pt.StoreIDs = map[string]string{}
			}
			pt.StoreIDs[k] = v
		}
	}
	return parts
}

// empty reports whether a state holds nothing worth a new file.
func (st *State) empty() bool {
	return len(st.Jobs) == 0 && len(st.Schedules) == 0 && len(st.StoreIDs) == 0
}

// rootOf is the canonical form of an FS root, or the cleaned one when it
// cannot be resolved (gone).
func rootOf(fsRoot string) string {
	if c, err := canonicalPath(fsRoot); err == nil {
		return c
	}
	return filepath.Clean(fsRoot)
}

package schedule

// storeIDs returns (and records in st.StoreIDs) the identities of the
// stores moved behind a symlink: a store path a job recorded that now
// resolves elsewhere (hab/pkgs moved and linked back) keeps that path as
// the identity of the store it leads to, unless that store has jobs of its
// own in the state (then it is another store, not a move).
func storeIDs(st *State) map[string]string {
	ids := map[string]string{}
	for k, v := range st.StoreIDs {
		ids[k] = v
	}
	own := map[string]bool{}
	for _, js := range st.Jobs {
		own[js.Store] = true
	}
	resolved := map[string]string{}
	for _, js := range st.Jobs {
		if js.Store == "" {
			continue
		}
		now, ok := resolved[js.Store]
		if !ok {
			now, _ = canonicalPath(js.Store)
			resolved[js.Store] = now
		}
		if now == "" || now == js.Store || own[now] {
			continue
		}
		if _, ok := ids[now]; ok {
			continue
		}
		id := js.Store
		if v, ok := ids[js.Store]; ok {
			id = v
		}
		ids[now] = id
	}
	if len(ids) > 0 {
		st.StoreIDs = ids
	}
	return ids
}

package pressure

// StillMissing is what a run under v leaves missing to reach MaxFree, in
// bytes (0: nothing). Not under pressure, nothing is missing. after is
// the free space read after a real run; nil (a dry run, or the reading
// failed) falls back to what the chosen removals, as measured, would
// leave missing (Short).
func (v Verdict) StillMissing(after *Space) int64 {
	switch {
	case !v.Under:
		return 0
	case after == nil:
		return v.Short
	default:
		return max(v.MaxFree-after.Avail, 0)
	}
}

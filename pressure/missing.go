package pressure

// StillMissing is what a run leaves missing to reach MaxFree: after is
// the free space read after a real run, nil falls back to Short.
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

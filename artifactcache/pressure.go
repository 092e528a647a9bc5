package artifactcache

import (
	"fmt"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// Limit is pressure.Limit for the cache, whose archives go (in name order)
// before any release. It returns the bytes the remaining removals free.
func Limit(files []File, sp pressure.Space, l pressure.Limits) (int64, error) {
	minFree, maxFree, err := l.Resolve(sp.Total)
	if err != nil {
		return 0, err
	}
	var cands []pressure.Candidate
	for _, f := range files {
		if f.Action == Remove {
			cands = append(cands, pressure.Candidate{Key: f.File, Size: f.Size})
		}
	}
	chosen := map[string]bool{}
	if sp.Avail < minFree {
		picked, _, _ := pressure.Select(cands, sp.Avail, maxFree)
		for _, p := range picked {
			chosen[p.Key] = true
		}
	}
	var freed int64
	for i := range files {
		f := &files[i]
		switch {
		case f.Action != Remove:
		case sp.Avail >= minFree:
			f.Action = Keep
			f.Reasons = append(f.Reasons, retention.Reason{Code: pressure.CodeEnoughFree, Text: fmt.Sprintf("free space %s is not below min-free %s: nothing is removed", humanize.Bytes(sp.Avail), humanize.Bytes(minFree))})
		case chosen[f.File]:
			freed += f.Size
			f.Reasons = append(f.Reasons, retention.Reason{Code: pressure.CodePressure, Text: "removed to reach max-free " + humanize.Bytes(maxFree) + ": the artifact cache goes before any release"})
		default:
			f.Action = Keep
			f.Reasons = append(f.Reasons, retention.Reason{Code: pressure.CodeTargetMet, Text: "not needed now: the archives before it reach max-free " + humanize.Bytes(maxFree)})
		}
	}
	return freed, nil
}

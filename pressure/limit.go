package pressure

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// Reason codes Limit adds to a plan.
const (
	CodePressure   retention.Code = "disk-pressure"    // removed to reach max-free
	CodeEnoughFree retention.Code = "enough-free"      // kept: not below min-free
	CodeTargetMet  retention.Code = "max-free-reached" // kept: removals before it suffice
)

var ErrBadLimits = errors.New("invalid free-space limits")

// Limits: below MinFree, free up to MaxFree. The zero MinFree is never
// under pressure; MaxFree below MinFree (zero included) is refused (the
// CLI's --max-free defaults to --min-free).
type Limits struct {
	MinFree, MaxFree Size
}

// ErrMaxBelowMin is wrapped together with ErrBadLimits.
var ErrMaxBelowMin = errors.New("max-free is less than min-free")

type maxBelowMinError struct{ l Limits }

func (e maxBelowMinError) Error() string {
	return fmt.Sprintf("%v: max-free %s is less than min-free %s", ErrBadLimits, e.l.MaxFree, e.l.MinFree)
}
func (e maxBelowMinError) Unwrap() []error { return []error{ErrBadLimits, ErrMaxBelowMin} }

// Check refuses, before the file system is known, what Resolve would
// refuse on any: a negative size, a percentage outside 0-100, MaxFree below
// MinFree in bytes.
func (l Limits) Check() error {
	for _, s := range []Size{l.MinFree, l.MaxFree} {
		if s.Bytes < 0 || s.Percent < 0 || s.Percent > 100 || s.Percent != s.Percent {
			return fmt.Errorf("%w: size %+v is negative or not a percentage of 0-100", ErrBadLimits, s)
		}
	}
	if l.MinFree.Percent == 0 && l.MaxFree.Percent == 0 && l.MaxFree.Bytes < l.MinFree.Bytes {
		return maxBelowMinError{l}
	}
	return nil
}

// Resolve returns both limits in bytes on a file system of total bytes.
func (l Limits) Resolve(total int64) (minFree, maxFree int64, err error) {
	if err := l.Check(); err != nil {
		return 0, 0, err
	}
	minFree, maxFree = l.MinFree.Of(total), l.MaxFree.Of(total)
	if maxFree < minFree {
		return 0, 0, maxBelowMinError{l}
	}
	return minFree, maxFree, nil
}

func (l Limits) maxText(maxFree int64) string {
	if l.MaxFree.Percent > 0 {
		return fmt.Sprintf("max-free %s (%s)", l.MaxFree, humanize.Bytes(maxFree))
	}
	return "max-free " + humanize.Bytes(maxFree)
}

// Verdict is what Limit decided.
type Verdict struct {
	FreeBefore, Total int64
	MinFree, MaxFree  int64 // in bytes
	Under             bool  // below MinFree: else nothing is removed
	Reached           bool  // the chosen removals, as measured, reach MaxFree
	Short             int64 // what they leave missing
	Chosen            []Choice
}

func (v Verdict) Text(l Limits) string {
	switch {
	case !v.Under:
		return fmt.Sprintf("free space %s is not below min-free %s: nothing removed", humanize.Bytes(v.FreeBefore), humanize.Bytes(v.MinFree))
	case v.Reached:
		return fmt.Sprintf("free space %s is below min-free %s: removing %d release(s) to reach %s", humanize.Bytes(v.FreeBefore), humanize.Bytes(v.MinFree), len(v.Chosen), l.maxText(v.MaxFree))
	}
	return fmt.Sprintf("free space %s is below min-free %s: removing all %d release(s) the policy allows still leaves %s missing to reach %s", humanize.Bytes(v.FreeBefore), humanize.Bytes(v.MinFree), len(v.Chosen), humanize.Bytes(v.Short), l.maxText(v.MaxFree))
}

func candidates(p *retention.Plan) []Candidate {
	removals := p.Removals()
	isRemoval := make(map[pkgstore.Ref]bool, len(removals))
	for _, d := range removals {
		isRemoval[d.Release.Ref] = true
	}
	// Releases of a package are contiguous in the inventory, oldest first.
	rank, count := map[pkgstore.Ref]int{}, map[string]int{}
	for _, r := range p.Inventory.Releases {
		pkg := r.Ident.Origin + "/" + r.Ident.Name
		count[pkg]++
		rank[r.Ref] = count[pkg]
	}
	out := make([]Candidate, 0, len(removals))
	for _, d := range removals {
		r := d.Release
		pkg := r.Ident.Origin + "/" + r.Ident.Name
		c := Candidate{Key: r.Ident.String(), Package: pkg, OldestRank: rank[r.Ref], Behind: count[pkg] - rank[r.Ref],
			InstalledAt: r.InstalledAt(), Size: r.Size}
		for _, dep := range p.Graph.ReverseClosure(r.Ref) {
			if isRemoval[dep] && dep != r.Ref {
				c.Dependents = append(c.Dependents, p.Inventory.Ident(dep).String())
			}
		}
		out = append(out, c)
	}
	return out
}

// Limit changes the plan in place: only the removals Select takes stay.
// first are bytes freed before any release (the artifact cache's, cheaper
// to lose), so releases make up only what they leave missing.
func Limit(p *retention.Plan, sp Space, l Limits, first int64) (Verdict, error) {
	minFree, maxFree, err := l.Resolve(sp.Total)
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{FreeBefore: sp.Avail, Total: sp.Total, MinFree: minFree, MaxFree: maxFree, Under: sp.Avail < minFree}
	if !v.Under {
		why := retention.Reason{Code: CodeEnoughFree, Text: fmt.Sprintf("free space %s is not below min-free %s: nothing is removed", humanize.Bytes(sp.Avail), humanize.Bytes(minFree))}
		for i := range p.Decisions {
			if d := &p.Decisions[i]; d.Action == retention.Remove {
				d.Action, d.Reasons = retention.Keep, append(d.Reasons, why)
			}
		}
		v.Reached = true
		return v, nil
	}
	v.Chosen, v.Reached, v.Short = Select(candidates(p), sp.Avail+max(first, 0), maxFree)
	chosen := make(map[string]Choice, len(v.Chosen))
	for _, c := range v.Chosen {
		chosen[c.Key] = c
	}
	target := l.maxText(maxFree)
	for i := range p.Decisions {
		d := &p.Decisions[i]
		if d.Action != retention.Remove {
			continue
		}
		c, ok := chosen[d.Release.Ident.String()]
		if !ok {
			d.Action = retention.Keep
			d.Reasons = append(d.Reasons, retention.Reason{Code: CodeTargetMet, Text: fmt.Sprintf("not needed now: the removals before it in pressure order reach %s", target)})
			continue
		}
		text := fmt.Sprintf("removed to reach %s: %s of %s (%d newer installed; %s in pressure order)", target, oldest(c.OldestRank), c.Package, c.Behind, humanize.Ordinal(c.Position))
		if c.With != "" {
			text += ", with " + c.With + ", which it needs"
		}
		d.Reasons = append(d.Reasons, retention.Reason{Code: CodePressure, Text: text})
	}
	return v, nil
}

// LargestKept returns up to n measured releases the policy keeps, largest
// first.
func LargestKept(p *retention.Plan, n int) []retention.Decision {
	var kept []retention.Decision
	for _, d := range p.Decisions {
		if d.Action == retention.Keep && d.Release.Size >= 0 && !keptByPressure(d) {
			kept = append(kept, d)
		}
	}
	slices.SortStableFunc(kept, func(a, b retention.Decision) int { return cmp.Compare(b.Release.Size, a.Release.Size) })
	return kept[:min(n, len(kept))]
}

func keptByPressure(d retention.Decision) bool {
	for _, r := range d.Reasons {
		if r.Code == CodeEnoughFree || r.Code == CodeTargetMet {
			return true
		}
	}
	return false
}

func oldest(rank int) string {
	if rank == 1 {
		return "the oldest"
	}
	return humanize.Ordinal(rank) + " oldest"
}

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

// Reason codes a Limit adds to a plan.
const (
	// CodePressure: removed now, to reach max-free (with the plan's own
	// reasons for removing it).
	CodePressure retention.Code = "disk-pressure"
	// CodeEnoughFree: the plan would remove it, but free space is at or
	// above min-free, so nothing is removed.
	CodeEnoughFree retention.Code = "enough-free"
	// CodeTargetMet: the plan would remove it, but the removals before it
	// in pressure order already reach max-free.
	CodeTargetMet retention.Code = "max-free-reached"
)

// ErrBadLimits is wrapped by Limits.Resolve's errors.
var ErrBadLimits = errors.New("invalid free-space limits")

// Limits are the free-space thresholds: below MinFree, free up to MaxFree.
// The zero MinFree is never under pressure (nothing is removed); MaxFree
// below MinFree, the zero MaxFree included, is refused by Resolve (the
// CLI's --max-free defaults to --min-free). A negative size, or a
// percentage above 100 or below 0, is refused too.
type Limits struct {
	MinFree, MaxFree Size
}

// ErrMaxBelowMin is wrapped, with ErrBadLimits, by the error of a MaxFree
// below MinFree (Check, Resolve).
var ErrMaxBelowMin = errors.New("max-free is less than min-free")

// maxBelowMinError is the error of l's MaxFree below its MinFree: it
// wraps ErrBadLimits and ErrMaxBelowMin.
type maxBelowMinError struct{ l Limits }

func (e maxBelowMinError) Error() string {
	return fmt.Sprintf("%v: max-free %s is less than min-free %s", ErrBadLimits, e.l.MaxFree, e.l.MinFree)
}
func (e maxBelowMinError) Unwrap() []error { return []error{ErrBadLimits, ErrMaxBelowMin} }

// Check refuses what Resolve refuses on a file system of any size, so
// that limits can be refused before it is known: a negative size, a
// percentage outside 0-100, and MaxFree below MinFree when both are
// bytes (ErrMaxBelowMin). Its errors wrap ErrBadLimits.
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

// Resolve returns both limits in bytes on a file system of total bytes;
// what Check refuses and MaxFree below MinFree on this file system are
// errors (ErrBadLimits; the latter ErrMaxBelowMin too).
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
	// FreeBefore and Total are the free space and size read before.
	FreeBefore, Total int64
	// MinFree and MaxFree are the limits in bytes.
	MinFree, MaxFree int64
	// Under reports whether free space was below MinFree (else nothing is
	// removed).
	Under bool
	// Reached reports whether the chosen removals, as measured, reach
	// MaxFree; Short is what they leave missing (0 when reached).
	Reached bool
	Short   int64
	// Chosen are the removals kept in the plan, in pressure order.
	Chosen []Choice
}

// Text says what the verdict means, in one sentence.
func (v Verdict) Text(l Limits) string {
	switch {
	case !v.Under:
		return fmt.Sprintf("free space %s is not below min-free %s: nothing removed", humanize.Bytes(v.FreeBefore), humanize.Bytes(v.MinFree))
	case v.Reached:
		return fmt.Sprintf("free space %s is below min-free %s: removing %d release(s) to reach %s", humanize.Bytes(v.FreeBefore), humanize.Bytes(v.MinFree), len(v.Chosen), l.maxText(v.MaxFree))
	}
	return fmt.Sprintf("free space %s is below min-free %s: removing all %d release(s) the policy allows still leaves %s missing to reach %s", humanize.Bytes(v.FreeBefore), humanize.Bytes(v.MinFree), len(v.Chosen), humanize.Bytes(v.Short), l.maxText(v.MaxFree))
}

// Candidates returns the plan's removals as the selection sees them:
// their place in their package, install time, size and the removals
// that need them.
func Candidates(p *retention.Plan) []Candidate {
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

// Limit restricts a plan to what disk pressure calls for, given the
// store's file system's space: at or above min-free every removal is kept
// (CodeEnoughFree); below it, the removals Select takes stay, each with a
// CodePressure reason saying its place in the order, and the others are
// kept (CodeTargetMet). Releases the plan keeps are never touched. The
// plan is changed in place.
func Limit(p *retention.Plan, sp Space, l Limits) (Verdict, error) {
	return LimitAfter(p, sp, l, 0)
}

// LimitAfter is Limit when first bytes are freed before any release (the
// artifact cache's files, which are cheaper to lose): they count towards
// max-free, and releases are taken only for what they leave missing.
func LimitAfter(p *retention.Plan, sp Space, l Limits, first int64) (Verdict, error) {
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
	v.Chosen, v.Reached, v.Short = Select(Candidates(p), sp.Avail+max(first, 0), maxFree)
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

// LargestKept returns up to n releases the plan keeps, largest first
// (measured ones only), leaving out those kept only by pressure.
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

package schedule

import "time"

// NextRuns is what `hab-gc schedule next` shows for a spec: the cron
// expression spec resolves to for in (Resolve; in.Zone is the zone cron
// is read in, nil for UTC), and the next count times it fires after from
// (fewer when it stops firing). The expression is returned also when it
// cannot be read as cron, with the error.
func NextRuns(spec Spec, in HashInput, from time.Time, count int) (string, []time.Time, error) {
	expr := Resolve(spec, in)
	cr, err := NewCron(expr, spec.Zone(in.Zone))
	if err != nil {
		return expr, nil, err
	}
	var times []time.Time
	for t, i := from, 0; i < count; i++ {
		if t = cr.Next(t); t.IsZero() {
			break
		}
		times = append(times, t)
	}
	return expr, times, nil
}

package retention

import "fmt"

// oneOption is the optional trailing options argument of PlanStore and
// Apply: the zero value when absent. More than one is refused rather than
// merged or ignored, so that no option a caller wrote is silently lost.
func oneOption[T any](opts []T) (T, error) {
	var zero T
	switch len(opts) {
	case 0:
		return zero, nil
	case 1:
		return opts[0], nil
	}
	return zero, fmt.Errorf("%d %T given; at most one: nothing was done", len(opts), zero)
}

package retention

import "fmt"

// oneOption: the zero value when absent; more than one is refused.
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

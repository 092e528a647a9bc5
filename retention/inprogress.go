package retention

import "time"

// InProgressAge is the age below which an install directory left in the
// store is taken for an install in progress (pkgstore.IsNotice), for a
// minimum age as Policy.MinAge spells it: 0 is DefaultMinAge, NoMinAge is
// none (no directory is in progress), any other positive age itself.
func InProgressAge(minAge time.Duration) time.Duration {
	switch {
	case minAge == NoMinAge:
		return 0
	case minAge > 0:
		return minAge
	}
	return DefaultMinAge
}

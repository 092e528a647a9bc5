package retention

import "time"

// InProgressAge is the age below which an install directory is taken for
// an install in progress, for a MinAge setting.
func InProgressAge(minAge time.Duration) time.Duration {
	switch {
	case minAge == NoMinAge:
		return 0
	case minAge > 0:
		return minAge
	}
	return DefaultMinAge
}

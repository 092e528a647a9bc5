package humanize

import (
	"fmt"
	"time"
)

// Bytes: "512 B", "1.5 MiB".
func Bytes(n int64) string {
	if n < 0 {
		return "-" + Bytes(-n)
	}
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Ordinal: 1st, 2nd, 3rd, 4th, 11th...
func Ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// DurationSetting spells d as retention.ParseDuration reads it: "none"
// for the setting's none constant, else Go's spelling.
func DurationSetting(d, none time.Duration) string {
	if d == none {
		return "none"
	}
	return d.String()
}

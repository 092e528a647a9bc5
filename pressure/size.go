package pressure

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hab-gc/hab-gc/internal/humanize"
)

var ErrBadSize = errors.New("invalid size")

// Size is bytes, or, when Percent is above 0, a share of the file system.
type Size struct {
	Bytes   int64
	Percent float64
}

var units = []struct {
	suffix string
	mult   float64
}{
	// Longest suffixes first, so that "KiB" is not read as "B".
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40}, {"pib", 1 << 50}, {"eib", 1 << 60},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12}, {"pb", 1e15}, {"eb", 1e18},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"p", 1 << 50}, {"e", 1 << 60},
	{"b", 1},
}

// ParseSize reads "500MB", "2GiB", "1.5 g", "4096" (KB... powers of 1000,
// KiB... and K... of 1024) or "10%" (above 0, at most 100), in any case.
func ParseSize(s string) (Size, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if num, ok := strings.CutSuffix(t, "%"); ok {
		p, err := parseNumber(strings.TrimSpace(num))
		if err != nil || p <= 0 || p > 100 {
			return Size{}, fmt.Errorf("%w %q: a percentage must be more than 0 and at most 100", ErrBadSize, s)
		}
		return Size{Percent: p}, nil
	}
	mult := 1.0
	for _, u := range units {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	n, err := parseNumber(t)
	if err != nil {
		return Size{}, fmt.Errorf("%w %q: want a size such as 500MB, 2GiB or 10%%", ErrBadSize, s)
	}
	b := n * mult
	if b >= math.MaxInt64 {
		return Size{}, fmt.Errorf("%w %q: too large", ErrBadSize, s)
	}
	return Size{Bytes: int64(b)}, nil
}

// parseNumber refuses a sign, an exponent, hex, NaN and infinity.
func parseNumber(s string) (float64, error) {
	if s == "" || strings.Trim(s, "0123456789.") != "" || strings.Count(s, ".") > 1 || s == "." {
		return 0, ErrBadSize
	}
	return strconv.ParseFloat(s, 64)
}

func (s Size) Of(total int64) int64 {
	if s.Percent > 0 {
		return int64(float64(total) * s.Percent / 100)
	}
	return s.Bytes
}

func (s Size) String() string {
	if s.Percent > 0 {
		return strconv.FormatFloat(s.Percent, 'f', -1, 64) + "%"
	}
	return humanize.Bytes(s.Bytes)
}

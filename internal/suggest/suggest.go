package suggest

import "fmt"

// nearest returns the first of the nearest non-empty words of known within
// maxEdits edits; "" when none is.
func nearest(word string, known []string, maxEdits int) string {
	best, dist := "", maxEdits+1
	for _, k := range known {
		if k == "" {
			continue
		}
		if d := distance(word, k); d < dist {
			best, dist = k, d
		}
	}
	return best
}

// Hint is " (did you mean K?)" for the nearest word K of known, or "".
func Hint(word string, known []string, maxEdits int) string {
	best := nearest(word, known, maxEdits)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// distance is Levenshtein's, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

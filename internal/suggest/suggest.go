package suggest

import "fmt"

// Nearest returns the word of known nearest to word, when it is at most
// maxEdits edits away (Distance); the first of several as near; "" when
// none is. Empty words of known are never suggested.
func Nearest(word string, known []string, maxEdits int) string {
	best, dist := "", maxEdits+1
	for _, k := range known {
		if k == "" {
			continue
		}
		if d := Distance(word, k); d < dist {
			best, dist = k, d
		}
	}
	return best
}

// Hint is " (did you mean K?)" for the nearest word K of known within
// maxEdits edits (Nearest), to follow the name of what is unknown; "" when
// none is near.
func Hint(word string, known []string, maxEdits int) string {
	best := Nearest(word, known, maxEdits)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// Distance is Levenshtein's distance between a and b, in bytes: the
// fewest insertions, deletions and substitutions that turn one into the
// other.
func Distance(a, b string) int {
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

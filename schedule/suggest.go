package schedule

import (
	"fmt"
	"reflect"
	"strings"
)

// suggestKey returns " (did you mean K?)" for the known key K of the
// table a misspelt key is in (key: its path, as the TOML decoder gives
// it), when one is within two edits; "" otherwise. Known keys are those of
// the definition file format (fileFormat).
func suggestKey(key []string) string {
	if len(key) == 0 {
		return ""
	}
	t := reflect.TypeOf(fileFormat{})
	for _, part := range key[:len(key)-1] {
		f, ok := tomlField(t, part)
		if !ok {
			return ""
		}
		t = f.Type
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return ""
		}
	}
	bad := key[len(key)-1]
	best, dist := "", 3
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if d := editDistance(bad, name); name != "" && d < dist {
			best, dist = name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

func tomlField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); n == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// editDistance is Levenshtein's distance between a and b.
func editDistance(a, b string) int {
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

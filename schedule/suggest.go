package schedule

import (
	"reflect"
	"strings"

	"github.com/hab-gc/hab-gc/internal/suggest"
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
	names := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		names = append(names, name)
	}
	return suggest.Hint(key[len(key)-1], names, 2)
}

func tomlField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); n == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

package schedule_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestDefinitionTypoSuggestsKey: an unknown key in a
// schedule file says the nearest known key of its table, as hab-gc.toml's
// do; one near nothing gets no suggestion.
func TestDefinitionTypoSuggestsKey(t *testing.T) {
	root := newEnv(t).store()
	for _, tc := range []struct{ text, want string }{
		{"fs_rot = \"/\"\n[prune]\nschedule = \"@daily\"\n", "unknown field fs_rot (did you mean fs_root?)"},
		{"fs_root = " + strconv.Quote(root) + "\n[prune]\nschedule = \"@daily\"\nkeep_lates = 2\n", "unknown field prune.keep_lates (did you mean keep_latest?)"},
		{"fs_root = " + strconv.Quote(root) + "\n[check]\nshedule = \"@daily\"\n", "(did you mean schedule?)"},
		{"fs_root = " + strconv.Quote(root) + "\n[prune]\nschedule = \"@daily\"\nzzzzzzzz = 1\n", "unknown field prune.zzzzzzzz"},
	} {
		_, err := schedule.ParseDefinition("d.toml", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.text, err, tc.want)
		}
		if strings.HasPrefix(tc.want, "unknown field prune.zzz") && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("%q: a suggestion for a key near nothing: %v", tc.text, err)
		}
	}
}

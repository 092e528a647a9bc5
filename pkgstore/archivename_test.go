package pkgstore

import (
	"slices"
	"strings"
	"testing"
)

func TestArchiveNameIdents(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"core-redis-7.2.4-20240101000000-x86_64-linux.hart", []string{"core/redis/7.2.4/20240101000000"}},
		{"my-org-redis-7.2.4-20240101000000-x86_64-linux.hart", []string{"my/org-redis/7.2.4/20240101000000", "my-org/redis/7.2.4/20240101000000"}},
		{"core-redis-7.2.4-20240101000000-aarch64-linux.hart", nil}, // another target
		{"core-redis-20240101000000-x86_64-linux.hart", nil},        // no version
		{"x86_64-linux.hart", nil},
		{"-x86_64-linux.hart", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for id := range archiveNameIdents(tc.name, "x86_64-linux") {
				got = append(got, id.String())
			}
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%s not among %q", w, got)
				}
			}
			if len(tc.want) == 0 && len(got) > 0 {
				t.Errorf("got %q, want none", got)
			}
		})
	}
}

// FuzzArchiveNameIdents: every ident read from a name is one whose archive
// has that name.
func FuzzArchiveNameIdents(f *testing.F) {
	f.Add("core-redis-7.2.4-20240101000000-x86_64-linux.hart")
	f.Add("a-b-c-d-e-f-x86_64-linux.hart")
	f.Fuzz(func(t *testing.T, name string) {
		for id := range archiveNameIdents(name, "x86_64-linux") {
			if got := strings.ReplaceAll(id.String(), "/", "-") + "-x86_64-linux.hart"; got != name {
				t.Fatalf("%q read as %s, whose archive is %q", name, id, got)
			}
		}
	})
}

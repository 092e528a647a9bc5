package artifactcache_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

func TestLimit(t *testing.T) {
	size := func(s string) pressure.Size {
		v, err := pressure.ParseSize(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	files := func() []artifactcache.File {
		return []artifactcache.File{
			{File: "a.hart", Action: artifactcache.Remove, Size: 100},
			{File: "b.hart", Action: artifactcache.Remove, Size: 100},
			{File: "c.hart", Action: artifactcache.Keep, Size: 100},
		}
	}
	for _, tc := range []struct {
		name    string
		avail   int64
		freed   int64
		removed int
		keptWhy retention.Code
	}{
		{"enough free: nothing goes", 1000, 0, 0, pressure.CodeEnoughFree},
		{"below min-free: one archive reaches max-free", 400, 100, 1, pressure.CodeTargetMet},
		{"far below: every removal goes", 0, 200, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := files()
			freed, err := artifactcache.Limit(fs, pressure.Space{Avail: tc.avail, Total: 10000}, pressure.Limits{MinFree: size("450B"), MaxFree: size("500B")})
			if err != nil {
				t.Fatal(err)
			}
			removed := 0
			for _, f := range fs[:2] {
				switch {
				case f.Action == artifactcache.Remove:
					removed++
				case f.Reasons[len(f.Reasons)-1].Code != tc.keptWhy:
					t.Errorf("%s kept with %v, want %s", f.File, f.Reasons, tc.keptWhy)
				}
			}
			if freed != tc.freed || removed != tc.removed || fs[2].Action != artifactcache.Keep {
				t.Errorf("freed %d, %d removed (%+v); want %d, %d", freed, removed, fs, tc.freed, tc.removed)
			}
		})
	}
	if _, err := artifactcache.Limit(files(), pressure.Space{Total: 10000}, pressure.Limits{MinFree: size("500B"), MaxFree: size("100B")}); err == nil {
		t.Error("max-free below min-free accepted")
	}
}

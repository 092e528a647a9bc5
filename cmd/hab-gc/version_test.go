package main

import (
	"runtime/debug"
	"testing"
)

// TestBuildVersion: the version names the commit the binary was built
// from when the build recorded it.
func TestBuildVersion(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name          string
		bi            *debug.BuildInfo
		ok            bool
		version, comm string
	}{
		{"no build info", nil, false, "devel", ""},
		{"go run", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "devel", ""},
		{"go build in a clone", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs", "git", "vcs.revision", "0123abcd", "vcs.modified", "false")}, true, "devel", "0123abcd"},
		{"uncommitted changes", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "0123abcd", "vcs.modified", "true")}, true, "devel", "0123abcd+dirty"},
		{"a tagged module", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v1.2.3", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, c := buildVersion(tt.bi, tt.ok)
			if v != tt.version || c != tt.comm {
				t.Errorf("buildVersion = %q, %q; want %q, %q", v, c, tt.version, tt.comm)
			}
		})
	}
}

package pkgstore

import (
	"strings"
	"testing"
)

func TestParseServiceSpec(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{`ident = "core/redis"`, "core/redis", ""},
		{"ident = \"core/redis/4.0.14\"\ndesired_state = \"down\"\n[health_check_interval]\nsecs = 30\nnanos = 0\n", "core/redis/4.0.14", ""},
		{`ident = "core/re dis"`, "", "whitespace"},
		{`group = "x"`, "", `no "ident"`},
		{"ident = [", "", "line 1"},
	}
	for _, tt := range tests {
		id, _, err := ParseServiceSpec("redis", []byte(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || id.String() != tt.want {
			t.Errorf("%q: %v %v", tt.in, id, err)
		}
	}
}

func FuzzParseServiceSpec(f *testing.F) {
	f.Add([]byte(`ident = "core/redis"`))
	f.Add([]byte("ident = \"core/redis/1/2\"\ndesired_state = \"up\"\nbinds = [\"a:b.c\"]\n"))
	f.Add([]byte("ident = ["))
	f.Fuzz(func(t *testing.T, data []byte) {
		id, state, err := ParseServiceSpec("x", data)
		if err != nil {
			return
		}
		if _, perr := ParseIdent(id.String()); perr != nil || (state != "up" && state != "down") {
			t.Fatalf("accepted an invalid spec: %v %q %v", id, state, perr)
		}
	})
}

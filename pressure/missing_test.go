package pressure

import "testing"

func TestStillMissing(t *testing.T) {
	under := Verdict{Under: true, MinFree: 100, MaxFree: 300, Short: 50}
	tests := []struct {
		name  string
		v     Verdict
		after *Space
		want  int64
	}{
		{name: "not under pressure", v: Verdict{MaxFree: 300, Short: 50}, after: &Space{Avail: 10}, want: 0},
		{name: "dry run: what the plan leaves short", v: under, want: 50},
		{name: "after a run, below max-free", v: under, after: &Space{Avail: 280}, want: 20},
		{name: "after a run, max-free reached", v: under, after: &Space{Avail: 300}, want: 0},
		{name: "after a run, above max-free", v: under, after: &Space{Avail: 900}, want: 0},
		{name: "after a run that freed less than measured", v: Verdict{Under: true, MaxFree: 300}, after: &Space{Avail: 100}, want: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.StillMissing(tt.after); got != tt.want {
				t.Errorf("StillMissing = %d, want %d", got, tt.want)
			}
		})
	}
}

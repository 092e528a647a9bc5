package pressure

import (
	"errors"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in    string
		bytes int64
		pct   float64
		bad   bool
	}{
		{in: "4096", bytes: 4096},
		{in: "500MB", bytes: 500e6},
		{in: "500mb", bytes: 500e6},
		{in: "2GiB", bytes: 2 << 30},
		{in: "1.5 GiB", bytes: 3 << 29},
		{in: "8m", bytes: 8 << 20},
		{in: "10K", bytes: 10 << 10},
		{in: "3KB", bytes: 3000},
		{in: "7B", bytes: 7},
		{in: "0", bytes: 0},
		{in: "10%", pct: 10},
		{in: " 2.5 % ", pct: 2.5},
		{in: "100%", pct: 100},
		{in: "0%", bad: true},
		{in: "101%", bad: true},
		{in: "-1GiB", bad: true},
		{in: "GiB", bad: true},
		{in: "", bad: true},
		{in: "1e3", bad: true},
		{in: "NaN", bad: true},
		{in: "inf", bad: true},
		{in: "0x10", bad: true},
		{in: "1.2.3MB", bad: true},
		{in: "9999999999TiB", bad: true},
		{in: "5 parsecs", bad: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSize(tc.in)
			if tc.bad {
				if !errors.Is(err, ErrBadSize) {
					t.Fatalf("ParseSize(%q) = %+v, %v; want ErrBadSize", tc.in, got, err)
				}
				return
			}
			if err != nil || got.Bytes != tc.bytes || got.Percent != tc.pct {
				t.Fatalf("ParseSize(%q) = %+v, %v; want %d bytes, %v%%", tc.in, got, err, tc.bytes, tc.pct)
			}
		})
	}
}

func TestSizeOfAndString(t *testing.T) {
	for _, tc := range []struct {
		s     Size
		total int64
		want  int64
		text  string
	}{
		{Size{Percent: 10}, 8 << 20, 838860, "10%"},
		{Size{Bytes: 5 << 30}, 1, 5 << 30, "5.0 GiB"},
		{Size{Bytes: 1536 << 10}, 0, 1536 << 10, "1.5 MiB"},
		{Size{Bytes: 100}, 0, 100, "100 B"},
	} {
		if got := tc.s.Of(tc.total); got != tc.want {
			t.Errorf("%+v.Of(%d) = %d, want %d", tc.s, tc.total, got, tc.want)
		}
		if got := tc.s.String(); got != tc.text {
			t.Errorf("%+v.String() = %q, want %q", tc.s, got, tc.text)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"2GiB", "500MB", "10%", "1.5 g", "0", "-1", "1e9", "100%", "9223372036854775807", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSize(s)
		if err != nil {
			if !errors.Is(err, ErrBadSize) {
				t.Fatalf("ParseSize(%q): error %v does not wrap ErrBadSize", s, err)
			}
			return
		}
		if got.Bytes < 0 || got.Percent < 0 || got.Percent > 100 || (got.Percent > 0 && got.Bytes != 0) {
			t.Fatalf("ParseSize(%q) = %+v: out of range", s, got)
		}
		if got.Of(1<<40) < 0 {
			t.Fatalf("ParseSize(%q).Of = negative", s)
		}
		// What String shows parses back to about the same size (below
		// 1 EiB, where rounding cannot overflow).
		if got.Bytes >= 1<<60 {
			return
		}
		back, err := ParseSize(got.String())
		if err != nil {
			t.Fatalf("ParseSize(%q) = %+v, whose String %q does not parse: %v", s, got, got.String(), err)
		}
		if got.Percent > 0 && back.Percent != got.Percent {
			t.Fatalf("percent %v came back as %v", got.Percent, back.Percent)
		}
		if d := back.Bytes - got.Bytes; got.Percent == 0 && (d > got.Bytes/20+1 || -d > got.Bytes/20+1) {
			t.Fatalf("%d bytes shown as %q came back as %d", got.Bytes, got.String(), back.Bytes)
		}
	})
}

package history

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseRecord: the parser never panics, and what it accepts is a
// record that survives a round trip.
func FuzzParseRecord(f *testing.F) {
	f.Add([]byte(`{"time":"2026-01-01T00:00:01Z","kind":"run","run_id":"x","job":"run","fs_root":"/","policy":{"keep_latest":1,"min_age":"1h"},"outcome":"ok","bytes_freed":0}`))
	f.Add([]byte(`{"time":"2026-01-01T00:00:01Z","kind":"release","ident":"core/a/1/2","outcome":"removed","reasons":[{"code":"superseded","text":"x"}]}`))
	f.Add([]byte(`{"time":"2026-01-01T00:00:01Z","kind":"rel`))
	f.Add([]byte(`{"kind":"release"}`))
	f.Add([]byte("\xef\xbb\xbf{}"))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := parseRecord(line)
		if err != nil {
			return
		}
		if r.Time.IsZero() || (r.Kind != KindRun && r.Kind != KindRelease && r.Kind != KindBinlink) || (r.Kind == KindRelease && r.Ident == "") || (r.Kind == KindBinlink && r.Link == "") {
			t.Fatalf("accepted an invalid record: %+v", r)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := parseRecord(b)
		if err != nil {
			t.Fatalf("round trip of %s: %v", b, err)
		}
		if !r2.Time.Equal(r.Time) || r2.Kind != r.Kind || r2.Ident != r.Ident || r2.BytesFreed != r.BytesFreed {
			t.Fatalf("round trip changed %+v into %+v", r, r2)
		}
	})
}

// FuzzParseFile: a journal file of any content yields records and
// notices, never a panic, and every non-blank line is one or the other.
func FuzzParseFile(f *testing.F) {
	f.Add([]byte(`{"time":"2026-01-01T00:00:01Z","kind":"run","outcome":"ok"}` + "\n" + `{"time":"2026-01-01T00:00:02Z","kind":"rel`))
	f.Add([]byte("\n\n{}\n"))
	f.Add([]byte("garbage\n" + `{"time":"2026-01-01T00:00:01Z","kind":"release","ident":"core/a/1/2"}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, notices := parseFile("history.jsonl", b)
		lines := 0
		for _, l := range bytes.Split(b, []byte{'\n'}) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		if len(recs)+len(notices) != lines {
			t.Fatalf("%d records and %d notices for %d lines", len(recs), len(notices), lines)
		}
		for i, n := range notices {
			if n.Last && i != len(notices)-1 {
				t.Fatalf("notice %d marked last: %+v", i, notices)
			}
		}
	})
}

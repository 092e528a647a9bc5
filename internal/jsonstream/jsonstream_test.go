package jsonstream_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/jsonstream"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// reference is what hab-gc wrote before streaming: one json.Encoder.
func reference(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.Bytes(), err
}

// same checks that Encode writes exactly the reference's bytes for v.
func same(t *testing.T, v any) {
	t.Helper()
	want, werr := reference(v)
	var got bytes.Buffer
	gerr := jsonstream.Encode(&got, v)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("error: json.Encoder %v, Encode %v", werr, gerr)
	}
	if werr != nil {
		return // on an error Encode may have written part (documented)
	}
	if !bytes.Equal(got.Bytes(), want) {
		i := 0
		for i < len(want) && i < got.Len() && want[i] == got.Bytes()[i] {
			i++
		}
		t.Fatalf("Encode differs from json.Encoder at byte %d:\n got: %q\nwant: %q\nfull want:\n%s",
			i, tail(got.Bytes(), i), tail(want, i), want)
	}
}

func tail(b []byte, i int) []byte {
	lo, hi := max(0, i-40), min(len(b), i+40)
	return b[lo:hi]
}

// Edge types: each exercises one rule of encoding/json.

type valMarshaler struct{ N int }

func (m valMarshaler) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, `{"v":%d,"s":"<&>"}`, m.N), nil
}

type ptrMarshaler struct{ N int }

func (m *ptrMarshaler) MarshalJSON() ([]byte, error) { return fmt.Appendf(nil, `"ptr %d"`, m.N), nil }

type ptrText struct{ S string }

func (m *ptrText) MarshalText() ([]byte, error) { return []byte("text " + m.S), nil }

type ownSlice []int

func (s ownSlice) MarshalJSON() ([]byte, error) { return fmt.Appendf(nil, `"%d ints"`, len(s)), nil }

type ptrZero struct{ N int }

func (z *ptrZero) IsZero() bool { return z.N == 7 }

type Inner struct {
	A     string   `json:"a"`
	Items []string `json:"items"`
	Skip  int      `json:"-"`
}

type inner struct {
	B      int   `json:"b,omitempty"`
	Items2 []int `json:"items2"`
}

type Deep struct {
	Inner
	D []float64 `json:"d"`
}

// Embedded is embedded through a pointer, nil or not.
type Embedded struct {
	E  []int `json:"e"`
	EI int   `json:"ei,omitempty"`
}

type Outer struct {
	Inner
	inner
	*Embedded
	*Deep      `json:"deep_ptr,omitempty"`
	Named      Inner            `json:"named"`
	Dash       int              `json:"-,"`   //lint:ignore SA5008 a field named "-", as encoding/json reads this tag
	BadTag     int              `json:"a\"b"` //lint:ignore SA5008 a malformed tag on purpose: encoding/json ignores its name
	NoTag      []valMarshaler   `json:",omitempty"`
	Ptrs       []ptrMarshaler   `json:"ptrs"`
	Texts      []ptrText        `json:"texts"`
	Own        ownSlice         `json:"own"`
	Bytes      []byte           `json:"bytes"`
	Any        any              `json:"any"`
	Nested     [][]int          `json:"nested"`
	Map        map[string][]int `json:"map,omitempty"`
	When       time.Time        `json:"when,omitzero"`
	Zero       ptrZero          `json:"zero,omitzero"`
	ZeroP      *ptrZero         `json:"zero_p,omitzero"`
	Iface      fmt.Stringer     `json:"iface,omitempty"`
	Arr        [2]string        `json:"arr"`
	Empty      struct{}         `json:"empty"`
	PM         ptrMarshaler     `json:"pm"`
	unexported []int
}

type Dup1 struct {
	X []int
}
type Dup2 struct {
	X []int
}
type dupNames struct {
	Dup1
	Dup2
	Y []int `json:"y"`
}

type Dup3 struct {
	X []int
}

type dominant struct {
	Dup3
	X []string
}

type quoted struct {
	N  int   `json:"n,string"`
	Xs []int `json:"xs"`
}

type taggedUnexported struct {
	inner `json:"inner"`
	Xs    []int `json:"xs"`
}

type cyclic struct {
	*cyclic
	Xs []int `json:"xs"`
}

var nasty = []string{
	"", "plain", "<script>&amp;</script>", "a<1.1 >=2 & x", "\u2028\u2029", "ünïcödé 日本 🎉",
	"\x00\x01\x1f\x7f", "tab\tnl\ncr\r", `quote" back\ slash/`, "\xff\xfe invalid utf-8", "\u202e rtl",
}

func TestEncodeMatchesEncoder(t *testing.T) {
	size := int64(42)
	tests := []struct {
		name string
		v    any
	}{
		{"nil", nil},
		{"nil pointer", (*retention.Report)(nil)},
		{"int", 3},
		{"string", "<&>"},
		{"map", map[string]int{"b": 1, "a": 2}},
		{"nil slice", []int(nil)},
		{"empty slice", []int{}},
		{"slice", []string{"a", "<b>"}},
		{"slice of structs", []Inner{{A: "x"}, {A: "y", Items: []string{}}}},
		{"bytes", []byte("hello")},
		{"empty struct", struct{}{}},
		{"struct no fields shown", struct {
			A []int `json:"a,omitempty"`
		}{}},
		{"zero report", retention.Report{}},
		{"empty report", retention.Report{Releases: []retention.ReportRelease{}, Problems: []pkgstore.Problem{}, Warnings: []retention.Warning{}, RootSources: []retention.Found{}, Leftovers: []retention.Leftover{}}},
		{"report", retention.Report{
			DryRun: true, FSRoot: "/tmp/x<y>", Target: "x86_64-linux",
			Releases: []retention.ReportRelease{
				{Ident: "core/a/1/2", Action: retention.Keep, Reasons: []retention.Reason{{Code: "newest", Text: "a & b <c>"}}},
				{Ident: "core/b/1/2", Action: retention.Remove, Size: &size, Outcome: &retention.ReportOutcome{Status: retention.StatusRemoved, BytesFreed: 42}},
				{Ident: "core/c/1/2", Action: retention.Remove, Reasons: []retention.Reason{}, Outcome: &retention.ReportOutcome{Reasons: []retention.Reason{{Text: "\u2028"}}, Error: "boom\x00"}},
			},
			Problems:    []pkgstore.Problem{{Path: "hab/pkgs/x", Kind: "install_leftover", Modified: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)}, {Path: "\xff"}},
			Warnings:    []retention.Warning{{Kind: "unmatched_exclude", Pin: "core/x@<1", Text: "no match"}},
			RootSources: []retention.Found{{Source: "processes", Counts: map[string]int{"inspected": 3}}},
		}},
		{"pointer to report", &retention.Report{Releases: []retention.ReportRelease{{Ident: "a"}}}},
		{"embedded report", struct {
			retention.Report
			Extra []string `json:"extra,omitempty"`
		}{Report: retention.Report{Releases: []retention.ReportRelease{{Ident: "a"}}}, Extra: []string{"<x>"}}},
		{"outer zero", Outer{}},
		{"outer", Outer{
			Inner: Inner{A: "<a>", Items: []string{"1", "2"}, Skip: 9}, inner: inner{B: 3, Items2: []int{4}},
			Deep: &Deep{Inner: Inner{A: "shadowed"}, D: []float64{1.5, 1e21, -0}}, Named: Inner{Items: []string{}},
			Embedded: &Embedded{E: []int{}}, Dash: 1, BadTag: 2, NoTag: []valMarshaler{{1}, {2}}, Ptrs: []ptrMarshaler{{5}}, Texts: []ptrText{{"t"}},
			Own: ownSlice{1, 2, 3}, Bytes: []byte{0, 1, 255}, Any: []any{1, "x", nil, map[string]any{"k": []int{}}},
			Nested: [][]int{nil, {}, {1}}, Map: map[string][]int{"z": nil, "a": {1}}, When: time.Unix(1e9, 5).UTC(),
			Zero: ptrZero{7}, ZeroP: &ptrZero{7}, Iface: time.Second, Arr: [2]string{"<", ">"}, PM: ptrMarshaler{8},
			unexported: []int{1},
		}},
		{"pointer to outer", &Outer{PM: ptrMarshaler{8}, Ptrs: []ptrMarshaler{{1}}, Zero: ptrZero{1}, ZeroP: &ptrZero{1}}},
		{"duplicate names", dupNames{Dup1{[]int{1}}, Dup2{[]int{2}}, []int{3}}},
		{"dominant name", dominant{Dup3{[]int{1}}, []string{"top"}}},
		{"string option", quoted{N: 5, Xs: []int{1}}},
		{"tagged unexported embedded", taggedUnexported{inner{B: 1}, []int{2}}},
		{"cyclic embedding", cyclic{&cyclic{Xs: []int{1}}, []int{2}}},
		{"own slice at top", ownSlice{1}},
		{"marshaler at top", valMarshaler{1}},
		{"ptr marshaler at top", &ptrMarshaler{1}},
		{"NaN", struct {
			F []float64 `json:"f"`
		}{[]float64{1, math.NaN()}}},
		{"NaN at top", math.NaN()},
	}
	for _, s := range nasty {
		tests = append(tests, struct {
			name string
			v    any
		}{fmt.Sprintf("string %q", s), retention.Report{FSRoot: s, Releases: []retention.ReportRelease{{Ident: s, Reasons: []retention.Reason{{Text: s}}}}}})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { same(t, tc.v) })
	}
}

// TestStreams checks which values are taken apart: the reports hab-gc
// prints must be, or they are encoded whole in memory again.
func TestStreams(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want bool
	}{
		{"report", retention.Report{}, true},
		{"pointer to report", &retention.Report{}, true},
		{"embedded report", struct {
			retention.Report
			inner
		}{}, true},
		{"slice", []retention.ReportRelease{}, true},
		{"outer", Outer{}, true},
		{"nil", nil, false},
		{"int", 1, false},
		{"bytes", []byte{}, false},
		{"duplicate names", dupNames{}, false},
		{"string option", quoted{}, false},
		{"tagged unexported embedded", taggedUnexported{}, false},
		{"own slice", ownSlice{}, false},
		{"marshaler", valMarshaler{}, false},
		{"time", time.Time{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := jsonstream.Streams(tc.v); got != tc.want {
				t.Errorf("Streams(%T) = %v, want %v", tc.v, got, tc.want)
			}
		})
	}
}

// gen makes a random value of type t: strings from nasty (and extra), nil
// or empty or filled slices and maps, nil or set pointers, zero or set
// times. Unexported fields stay zero.
func gen(r *rand.Rand, t reflect.Type, depth int, extra string) reflect.Value {
	v := reflect.New(t).Elem()
	if t == reflect.TypeFor[time.Time]() {
		if r.IntN(2) == 0 {
			v.Set(reflect.ValueOf(time.Unix(r.Int64N(4e9), r.Int64N(1e9)).In(time.FixedZone("x", 3600*r.IntN(5)))))
		}
		return v
	}
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if r.IntN(3) > 0 {
			v.SetInt(r.Int64N(1<<20) - 1<<19)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if r.IntN(3) > 0 {
			v.SetUint(r.Uint64N(200))
		}
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{0, 1.5, -2e-7, 1e21, 123456789}[r.IntN(5)])
	case reflect.String:
		s := nasty[r.IntN(len(nasty))]
		if r.IntN(4) == 0 {
			s = extra
		}
		v.SetString(s)
	case reflect.Pointer:
		if r.IntN(2) == 0 && depth < 6 {
			v.Set(gen(r, t.Elem(), depth+1, extra).Addr())
		}
	case reflect.Slice:
		switch n := r.IntN(5); {
		case n == 0 || depth >= 6:
		case n == 1:
			v.Set(reflect.MakeSlice(t, 0, 0))
		default:
			s := reflect.MakeSlice(t, n, n)
			for i := range n {
				s.Index(i).Set(gen(r, t.Elem(), depth+1, extra))
			}
			v.Set(s)
		}
	case reflect.Map:
		if r.IntN(3) > 0 && depth < 6 {
			m := reflect.MakeMap(t)
			for range r.IntN(3) {
				m.SetMapIndex(gen(r, t.Key(), depth+1, extra), gen(r, t.Elem(), depth+1, extra))
			}
			v.Set(m)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(gen(r, t.Field(i).Type, depth+1, extra))
			}
		}
	case reflect.Interface:
		if r.IntN(2) == 0 && reflect.TypeFor[[]string]().Implements(t) {
			v.Set(gen(r, reflect.TypeFor[[]string](), depth+1, extra))
		}
	}
	return v
}

// runLike is the shape of hab-gc run --json: a report with an embedded
// struct of an unexported type and a trailing omitempty slice.
type runLike struct {
	retention.Report
	pressureLike
	Cache []struct {
		File    string             `json:"file"`
		Reasons []retention.Reason `json:"reasons"`
		Size    int64              `json:"size"`
	} `json:"cache,omitempty"`
}

type pressureLike struct {
	FreeBefore  *int64                    `json:"free_before,omitempty"`
	LargestKept []retention.ReportRelease `json:"largest_kept,omitempty"`
}

var generated = []reflect.Type{
	reflect.TypeFor[retention.Report](),
	reflect.TypeFor[*retention.Report](),
	reflect.TypeFor[runLike](),
	reflect.TypeFor[[]pkgstore.Problem](),
	reflect.TypeFor[Outer](),
	reflect.TypeFor[dupNames](),
}

// TestEncodeGenerated compares Encode with json.Encoder on random
// reports and edge types.
func TestEncodeGenerated(t *testing.T) {
	for _, typ := range generated {
		t.Run(typ.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(typ.String()))))
			for range 300 {
				same(t, gen(r, typ, 0, "<&>").Interface())
			}
		})
	}
}

func FuzzEncode(f *testing.F) {
	f.Add(uint64(0), "")
	f.Add(uint64(1), "<a&b>")
	f.Add(uint64(2), "\x00\u2028\xff")
	f.Fuzz(func(t *testing.T, seed uint64, s string) {
		r := rand.New(rand.NewPCG(seed, seed>>7))
		for _, typ := range generated {
			same(t, gen(r, typ, 0, s).Interface())
		}
	})
}

// failWriter fails after n bytes.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

func TestEncodeWriteError(t *testing.T) {
	rep := retention.Report{Releases: make([]retention.ReportRelease, 100_000)}
	for _, n := range []int{0, 10, 70_000} {
		if err := jsonstream.Encode(&failWriter{n: n}, rep); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("after %d bytes: err = %v, want disk full", n, err)
		}
	}
}

// bigReport is a report of n releases shaped like a dry run's.
func bigReport(n int) retention.Report {
	rep := retention.Report{Releases: make([]retention.ReportRelease, n), Problems: []pkgstore.Problem{}, Warnings: []retention.Warning{}, RootSources: []retention.Found{}}
	for i := range rep.Releases {
		rep.Releases[i] = retention.ReportRelease{
			Ident: fmt.Sprintf("core/base%02d/1.0.%d/20200421041140", i%50, i), Action: retention.Keep,
			Reasons: []retention.Reason{{Code: "dependency", Text: "dependency of origin01/app000081/1.1.0/20200406201515, needed by origin00/app002260/2.1.1/20220806001456 (newest release of origin00/app002260 (3rd of 3 kept))"}},
		}
	}
	return rep
}

// BenchmarkEncode compares the memory Encode and json.Encoder use for a
// report of 100,000 releases (B/op).
func BenchmarkEncode(b *testing.B) {
	rep := bigReport(100_000)
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := jsonstream.Encode(discard{}, rep); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Encoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			enc := json.NewEncoder(discard{})
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(rep); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// discard is io.Discard without its ReadFrom, so nothing is special-cased.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestEncodeLongArrays covers the arrays Encode encodes in parallel
// chunks (at least two chunks' worth of elements): the bytes are the
// reference's around every chunk boundary, and an element that cannot be
// encoded, in any chunk, is an error.
func TestEncodeLongArrays(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{511, 512, 513, 767, 768, 1000, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			rep := bigReport(n)
			for i := range rep.Releases {
				rep.Releases[i].Reasons[0].Text += strings.Repeat("<&é\u2028", r.IntN(3))
			}
			rep.Problems = make([]pkgstore.Problem, n)
			for i := range rep.Problems {
				rep.Problems[i] = pkgstore.Problem{Path: fmt.Sprint("hab/pkgs/", i), Message: strings.Repeat("x", i%7)}
			}
			same(t, rep)
			same(t, rep.Releases)
			for _, bad := range []int{0, 255, 256, n / 2, n - 1} {
				vals := make([]any, n)
				for i := range vals {
					vals[i] = float64(i)
				}
				vals[bad] = math.NaN()
				if err := jsonstream.Encode(discard{}, vals); err == nil {
					t.Errorf("NaN at %d of %d: no error", bad, n)
				}
			}
		})
	}
}

// TestElements: a field written from Elements is byte for byte the field
// holding the same elements, short and long (parallel chunks), empty, in an
// embedded struct, and each element is made once; a name with no field, or
// a field that is not a slice, changes nothing.
func TestElements(t *testing.T) {
	type wrapped struct {
		retention.Report
		Extra string `json:"extra"`
	}
	for _, n := range []int{0, 1, 3, 511, 512, 1300} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			full := bigReport(n)
			for _, v := range []struct {
				name       string
				full, head any
			}{
				{"report", full, retention.Report{Problems: full.Problems, Warnings: full.Warnings, RootSources: full.RootSources}},
				{"embedded", wrapped{Report: full, Extra: "x"}, wrapped{Report: retention.Report{Problems: full.Problems, Warnings: full.Warnings, RootSources: full.RootSources}, Extra: "x"}},
			} {
				t.Run(v.name, func(t *testing.T) {
					want, err := reference(v.full)
					if err != nil {
						t.Fatal(err)
					}
					made := make([]atomic.Int32, n)
					var got bytes.Buffer
					err = jsonstream.Encode(&got, v.head, jsonstream.Elements("releases", n, func(i int) any {
						made[i].Add(1)
						return full.Releases[i]
					}))
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got.Bytes(), want) {
						t.Errorf("Elements: not the bytes of the full value:\n got %.300q\nwant %.300q", got.Bytes(), want)
					}
					for i := range made {
						if c := made[i].Load(); c != 1 {
							t.Fatalf("element %d made %d times", i, c)
						}
					}
				})
			}
		})
	}
	t.Run("no such field", func(t *testing.T) {
		rep := bigReport(3)
		want, _ := reference(rep)
		var got bytes.Buffer
		err := jsonstream.Encode(&got, rep, jsonstream.Elements("nope", 1, func(int) any { return 1 }),
			jsonstream.Elements("dry_run", 1, func(int) any { return 1 }))
		if err != nil || !bytes.Equal(got.Bytes(), want) {
			t.Errorf("err %v; got %.200q want %.200q", err, got.Bytes(), want)
		}
	})
}

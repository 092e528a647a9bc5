package jsonstream

import (
	"bufio"
	"bytes"
	"encoding"
	"encoding/json"
	"io"
	"reflect"
	"runtime"
)

const indent = "  "

// Encode writes v and a newline; what it cannot take apart it encodes
// whole.
func Encode(w io.Writer, v any, opts ...Option) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	s := &streamer{w: bw, encs: map[string]*json.Encoder{}}
	for _, o := range opts {
		o(s)
	}
	if err := s.top(reflect.ValueOf(v)); err != nil {
		return err
	}
	return bw.Flush()
}

// Streams reports whether Encode takes v apart.
func Streams(v any) bool {
	rv, ok := topValue(reflect.ValueOf(v))
	if !ok {
		return false
	}
	if rv.Kind() == reflect.Slice {
		return true
	}
	_, ok = structFields(rv.Type())
	return ok
}

type Option func(*streamer)

// Elements writes the top-level slice field with JSON name name as
// at(0), ..., at(n-1), made as they are written, so a caller need not hold
// a long array. at is called once for each, on several goroutines.
func Elements(name string, n int, at func(i int) any) Option {
	return func(s *streamer) {
		if s.lazy == nil {
			s.lazy = map[string]elements{}
		}
		s.lazy[name] = elements{n: n, at: func(i int) reflect.Value { return reflect.ValueOf(at(i)) }}
	}
}

type elements struct {
	n  int
	at func(i int) reflect.Value
}

func sliceElements(v reflect.Value) elements {
	return elements{n: v.Len(), at: v.Index}
}

type streamer struct {
	w    *bufio.Writer
	buf  bytes.Buffer
	encs map[string]*json.Encoder // by indentation prefix, all writing to buf
	lazy map[string]elements      // top-level fields written from Elements
}

// topValue follows pointers; ok for a struct or slice without an
// encoding of its own.
func topValue(v reflect.Value) (reflect.Value, bool) {
	for v.IsValid() && v.Kind() == reflect.Pointer && !v.IsNil() && !ownEncoding(v.Type()) {
		v = v.Elem()
	}
	switch {
	case !v.IsValid() || ownEncoding(v.Type()):
		return v, false
	case v.Kind() == reflect.Struct:
		return v, true
	case v.Kind() == reflect.Slice:
		return v, streamable(v.Type())
	}
	return v, false
}

func (s *streamer) top(v reflect.Value) error {
	rv, ok := topValue(v)
	var fields []field
	if ok && rv.Kind() == reflect.Struct {
		fields, ok = structFields(rv.Type())
	}
	var err error
	switch {
	case !ok:
		err = s.piece(v, "")
	case rv.Kind() == reflect.Slice:
		err = s.array(rv, "")
	default:
		err = s.object(rv, fields)
	}
	if err != nil {
		return err
	}
	return s.w.WriteByte('\n')
}

func (s *streamer) object(v reflect.Value, fields []field) error {
	wrote := false
	for _, f := range fields {
		fv, ok := f.value(v)
		if !ok || f.omit(fv) {
			continue
		}
		sep := ",\n" + indent + `"`
		if !wrote {
			sep = "{\n" + indent + `"`
		}
		wrote = true
		if _, err := s.w.WriteString(sep + f.name + `": `); err != nil {
			return err
		}
		var err error
		if l, ok := s.lazy[f.name]; ok && fv.Kind() == reflect.Slice {
			err = s.elements(l, indent)
		} else if fv.Kind() == reflect.Slice && streamable(fv.Type()) {
			err = s.array(fv, indent)
		} else {
			err = s.piece(fv, indent)
		}
		if err != nil {
			return err
		}
	}
	end := "\n}"
	if !wrote {
		end = "{}"
	}
	_, err := s.w.WriteString(end)
	return err
}

func (s *streamer) array(v reflect.Value, prefix string) error {
	if v.IsNil() {
		_, err := s.w.WriteString("null")
		return err
	}
	return s.elements(sliceElements(v), prefix)
}

func (s *streamer) elements(v elements, prefix string) error {
	if v.n == 0 {
		_, err := s.w.WriteString("[]")
		return err
	}
	inner := prefix + indent
	if v.n >= 2*chunkLen && runtime.GOMAXPROCS(0) > 1 {
		if err := s.elementsParallel(v, inner); err != nil {
			return err
		}
	} else {
		for i := range v.n {
			s.w.WriteString(elementStart(i, inner))
			if err := s.piece(v.at(i), inner); err != nil {
				return err
			}
		}
	}
	_, err := s.w.WriteString("\n" + prefix + "]")
	return err
}

func elementStart(i int, inner string) string {
	if i == 0 {
		return "[\n" + inner
	}
	return ",\n" + inner
}

// piece writes one value whose first line is already indented.
func (s *streamer) piece(v reflect.Value, prefix string) error {
	enc := s.encs[prefix]
	if enc == nil {
		enc = json.NewEncoder(&s.buf)
		enc.SetIndent(prefix, indent)
		enc.SetEscapeHTML(false)
		s.encs[prefix] = enc
	}
	var x any
	switch {
	case !v.IsValid():
	case v.CanAddr(): // as encoding/json does, for a MarshalJSON on the pointer
		x = v.Addr().Interface()
	default:
		x = v.Interface()
	}
	s.buf.Reset()
	if err := enc.Encode(x); err != nil {
		return err
	}
	_, err := s.w.Write(bytes.TrimSuffix(s.buf.Bytes(), []byte("\n")))
	return err
}

func ownEncoding(t reflect.Type) bool {
	m, tm := reflect.TypeFor[json.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()
	if t.Implements(m) || t.Implements(tm) {
		return true
	}
	p := reflect.PointerTo(t)
	return p.Implements(m) || p.Implements(tm)
}

// streamable: not bytes (base64) nor a type with its own encoding.
func streamable(t reflect.Type) bool {
	return t.Elem().Kind() != reflect.Uint8 && !ownEncoding(t)
}

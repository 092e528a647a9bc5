package jsonstream

import (
	"reflect"
	"slices"
	"strings"
	"unicode"
)

type field struct {
	name      string
	index     []int
	omitEmpty bool
	omitZero  bool
	isZero    func(reflect.Value) bool
}

// value is false when an embedded pointer on the way is nil.
func (f field) value(v reflect.Value) (reflect.Value, bool) {
	for _, i := range f.index {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v, true
}

func (f field) omit(v reflect.Value) bool {
	if f.omitEmpty && isEmptyValue(v) {
		return true
	}
	if !f.omitZero {
		return false
	}
	if f.isZero != nil {
		return f.isZero(v)
	}
	return v.IsZero()
}

func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// structFields lists t's JSON fields in encoding/json's order; false when
// Encode leaves t whole: a name two fields share (dominance is not
// repeated here), a struct embedded twice at one depth, or what fieldOf
// refuses.
func structFields(t reflect.Type) ([]field, bool) {
	type queued struct {
		typ   reflect.Type
		index []int
	}
	next := []queued{{typ: t}}
	visited := map[reflect.Type]bool{}
	var fields []field
	for len(next) > 0 {
		current := next
		next = nil
		count := map[reflect.Type]int{}
		for _, q := range current {
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true
			for i := range q.typ.NumField() {
				f, embed, use, ok := fieldOf(q.typ.Field(i), q.index, i)
				switch {
				case !ok:
					return nil, false
				case !use:
					continue
				case embed == nil:
					fields = append(fields, f)
					continue
				}
				if count[embed]++; count[embed] > 1 {
					return nil, false
				}
				next = append(next, queued{embed, f.index})
			}
		}
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.name] {
			return nil, false
		}
		seen[f.name] = true
	}
	slices.SortFunc(fields, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return fields, true
}

// fieldOf returns a field, or an embedded struct (embed), or use false;
// ok is false for a ",string" option or a tagged field of an unexported
// embedded type (reflection cannot read it).
func fieldOf(sf reflect.StructField, parent []int, i int) (f field, embed reflect.Type, use, ok bool) {
	if sf.Anonymous {
		et := sf.Type
		if et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		if !sf.IsExported() && et.Kind() != reflect.Struct {
			return f, nil, false, true
		}
	} else if !sf.IsExported() {
		return f, nil, false, true
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return f, nil, false, true
	}
	name, opts, _ := strings.Cut(tag, ",")
	if !isValidTag(name) {
		name = ""
	}
	if hasOption(opts, "string") {
		return f, nil, false, false
	}
	index := append(slices.Clone(parent), i)
	ft := sf.Type
	if ft.Name() == "" && ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
		if !sf.IsExported() {
			return f, nil, false, false
		}
		if name == "" {
			name = sf.Name
		}
		f = field{name: name, index: index, omitEmpty: hasOption(opts, "omitempty"), omitZero: hasOption(opts, "omitzero")}
		if f.omitZero {
			f.isZero = isZeroFunc(sf.Type)
		}
		return f, nil, true, true
	}
	return field{index: index}, ft, true, true
}

// isZeroFunc is encoding/json's omitzero for a type with IsZero; nil
// without one.
func isZeroFunc(t reflect.Type) func(reflect.Value) bool {
	type isZeroer = interface{ IsZero() bool }
	isZeroerType := reflect.TypeFor[isZeroer]()
	switch {
	case t.Kind() == reflect.Interface && t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			return v.IsNil() || (v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil()) || v.Interface().(isZeroer).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(isZeroerType):
		return func(v reflect.Value) bool { return v.IsNil() || v.Interface().(isZeroer).IsZero() }
	case t.Implements(isZeroerType):
		return func(v reflect.Value) bool { return v.Interface().(isZeroer).IsZero() }
	case reflect.PointerTo(t).Implements(isZeroerType):
		return func(v reflect.Value) bool {
			if !v.CanAddr() {
				v2 := reflect.New(v.Type()).Elem()
				v2.Set(v)
				v = v2
			}
			return v.Addr().Interface().(isZeroer).IsZero()
		}
	}
	return nil
}

func hasOption(opts, name string) bool { return slices.Contains(strings.Split(opts, ","), name) }

func isValidTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// Package jsonstream writes a report as indented JSON without building
// all of it in memory first.
//
// A json.Encoder marshals the whole value into one buffer, then copies it
// indented into a second before writing: for a report of 100,000
// releases that is two buffers of tens of MB, grown by doubling. Encode
// writes the same bytes, but piece by piece through a bufio.Writer: each
// top-level field of a struct, and each element of a top-level slice
// (of the value itself or of one of its fields), is encoded on its own by
// encoding/json, so the transient memory is one element's encoding. With
// Elements, a top-level field's array is made element by element as it is
// written, so that not even the value holds it (hab-gc run --json writes a
// plan's releases so).
//
// The output is byte for byte what json.Encoder with SetIndent("", "  ")
// and SetEscapeHTML(false) writes for the same value, trailing newline
// included: field names, order, omitempty and omitzero, embedded structs,
// null for a nil slice and [] for an empty one, the escaping of strings,
// Marshaler and TextMarshaler implementations. Values whose shape Encode
// does not take apart itself (a field name that several embedded structs
// share, a ",string" option, a type with its own MarshalJSON or
// MarshalText at the top) are encoded whole, as json.Encoder would.
//
// The elements of a long array are encoded in chunks by GOMAXPROCS
// goroutines and written in order, so a MarshalJSON or MarshalText of an
// element type must be safe to call concurrently (hab-gc's are: they only
// read).
//
// One difference remains: when encoding fails part way (an unsupported
// value such as a NaN float, a MarshalJSON that returns an error, a
// write error), what was encoded before the failure has been written,
// where json.Encoder writes nothing. The error is returned either way.
//
// # Files
//
// jsonstream.go takes a value apart and writes its pieces; parallel.go
// encodes the elements of a long array on several goroutines; fields.go
// finds a struct's JSON fields as encoding/json does.
package jsonstream

// Package jsonstream writes indented JSON piece by piece, byte for byte as
// json.Encoder with SetIndent("", "  ") and SetEscapeHTML(false): each
// top-level field and each element of a top-level slice is encoded on its
// own (long arrays on GOMAXPROCS goroutines; Elements makes them as they
// are written), so a report of 100,000 releases never sits in memory
// twice. On an error, what came before it has been written.
package jsonstream

// Package jsonstream writes a report as indented JSON piece by piece:
// each top-level field, and each element of a top-level slice, is encoded
// on its own by encoding/json (long arrays on GOMAXPROCS goroutines,
// written in order; Elements makes one as it is written), so a report of
// 100,000 releases never sits in memory twice. The output is byte for byte
// json.Encoder's with SetIndent("", "  ") and SetEscapeHTML(false); what
// Encode cannot take apart is encoded whole. On an error, what came before
// it has been written.
package jsonstream

// Package humanize spells numbers for the reasons and messages hab-gc
// shows: a byte count in binary units ("5.0 GiB"), a place ("3rd"), a
// duration setting as the CLI reads it ("none", "2h0m0s").
package humanize

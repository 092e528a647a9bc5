// Package display makes names from a store safe to show on a terminal: a
// right-to-left override, a zero-width space or an escape sequence could
// make one ident look like another, or hide or reorder a line. JSON output
// carries names exactly, unescaped.
package display

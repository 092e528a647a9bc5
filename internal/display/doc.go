// Package display makes text safe to show a person on a terminal.
//
// Names in a package store come from the file system and from metadata
// files: a directory or file name may hold a right-to-left override, a
// zero-width space, a byte order mark, a terminal escape sequence or bytes
// that are not UTF-8. Printed as they are, they can make one ident look like
// another, hide part of a line or reorder it. Escape writes each such
// character as a visible escape (\u{202e}, \x1b, \xff); everything else is
// left alone. Machine-readable output (JSON) is not escaped: it carries the
// names exactly.
package display

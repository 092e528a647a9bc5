//go:build !windows

package pkgstore

// caseInsensitive: names that differ in case are different directories
// here (Habitat's Linux stores are on case-sensitive file systems), so
// nothing is folded (see fold.go).
const caseInsensitive = false

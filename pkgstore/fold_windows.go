//go:build windows

package pkgstore

// caseInsensitive: Windows' file systems (NTFS, ReFS, FAT) take names
// without regard to case, but in a directory made case-sensitive (see
// fold.go).
const caseInsensitive = true

//go:build !windows

package safeio

import "os"

// RemoveAt removes name (a file, a symlink or an empty directory) inside
// root, never following a symlink at its last component (the link itself
// is removed): root.Remove, relative to the directory's descriptor
// (unlinkat). Windows has its own (remove_windows.go).
func RemoveAt(root *os.Root, name string) error { return root.Remove(name) }

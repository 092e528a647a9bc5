//go:build !windows

package safeio

import "os"

// RemoveAt removes name inside root, never following a symlink at its
// last component (unlinkat).
func RemoveAt(root *os.Root, name string) error { return root.Remove(name) }

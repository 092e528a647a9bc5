//go:build !linux && !windows

package retention

// removeEmptyDir removes the empty directory d (rmdir(2) refuses any
// other).
func (a *applier) removeEmptyDir(d string) error { return a.root.Remove(d) }

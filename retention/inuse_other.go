//go:build !windows

package retention

// heldOpen: on Unix an open file never stops a rename (runtime roots find
// the processes that use a release).
func heldOpen(err error) bool { return false }

const heldOpenText = ""

// heldFile: on Unix nothing in use shows in the file system (runtime
// roots find what processes use).
func (a *applier) heldFile(rel string) string { return "" }

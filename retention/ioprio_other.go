//go:build !linux

package retention

// lowerIOPriority does nothing here: only Linux has I/O priorities.
func lowerIOPriority() {}

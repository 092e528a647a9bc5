//go:build !linux

package pkgstore_test

import "testing"

// rawFloorScan is only written for Linux.
func rawFloorScan(b *testing.B, store string, workers int) int { return -1 }

//go:build !unix && !windows

package safeio

import (
	"io/fs"
	"os"
)

// Private is only implemented on Unix (owner and link count from stat):
// elsewhere nothing may serve as a private file.
func Private(fi fs.FileInfo, ownerOK func(uid int) bool) string {
	return "its owner and links cannot be checked on this platform"
}

// Owner is only implemented on Unix: elsewhere -1.
func Owner(fi fs.FileInfo) int { return -1 }

func isLoop(err error) bool { return false }

func privateHandle(f *os.File) string { return "" }

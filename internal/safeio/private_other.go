//go:build !unix && !windows

package safeio

import (
	"io/fs"
	"os"
)

// Private refuses everything where owner and links cannot be read.
func Private(fi fs.FileInfo, ownerOK func(uid int) bool) string {
	return "its owner and links cannot be checked on this platform"
}

func Owner(fi fs.FileInfo) int { return -1 }

func isLoop(err error) bool { return false }

func privateHandle(f *os.File) string { return "" }

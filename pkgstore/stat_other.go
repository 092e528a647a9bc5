//go:build !unix

package pkgstore

import (
	"io/fs"
	"time"
)

func changeTime(fi fs.FileInfo) time.Time { return time.Time{} }

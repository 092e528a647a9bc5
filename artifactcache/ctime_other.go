//go:build !linux && !darwin

package artifactcache

import (
	"io/fs"
	"time"
)

func ctime(fs.FileInfo) time.Time { return time.Time{} }

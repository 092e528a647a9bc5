//go:build !unix && !windows

package artifactcache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

const (
	oNoFollow = 0
	oNonBlock = 0
)

// supported: telling the file read needs a device and inode, opening it
// O_NOFOLLOW.
func supported() error {
	return fmt.Errorf("artifactcache on this platform: %w (Windows caches at C:\\hab\\cache\\artifacts are not handled yet)", errors.ErrUnsupported)
}

func links(fs.FileInfo) uint64 { return 1 }

func openedID(_ *os.File, fi fs.FileInfo) fileID { return idOf(fi) }

func (c *Cache) removeHandle(File) (FileOutcome, bool) { return FileOutcome{}, false }

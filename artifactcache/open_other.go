//go:build !unix && !windows

package artifactcache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// No O_NOFOLLOW or O_NONBLOCK: never used, since supported fails first.
const (
	oNoFollow = 0
	oNonBlock = 0
)

// supported fails off Unix: telling that a file removed is the one read
// needs stat's device and inode, and opening it without following a
// symlink needs O_NOFOLLOW. Habitat's Windows cache
// (C:\hab\cache\artifacts) is not handled yet.
func supported() error {
	return fmt.Errorf("artifactcache on this platform: %w (Windows caches at C:\\hab\\cache\\artifacts are not handled yet)", errors.ErrUnsupported)
}

func links(fs.FileInfo) uint64 { return 1 }

func openedID(_ *os.File, fi fs.FileInfo) fileID { return idOf(fi) }

func (c *Cache) removeHandle(File) (FileOutcome, bool) { return FileOutcome{}, false }

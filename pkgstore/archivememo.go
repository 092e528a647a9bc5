package pkgstore

import (
	"io/fs"
	"os"
	"time"

	"github.com/hab-gc/hab-gc/hart"
	"github.com/hab-gc/hab-gc/internal/fileinfo"
)

// An archive of the artifact cache changed within the install window is
// read by every scan (readFetched: its ident, target and dependencies),
// and a .hart is xz: each read decompresses its start. A watch's purge
// after an update rescans the store up to three times, and every update
// leaves a new archive in the cache, so the same few archives were read
// again and again (a fifth of a purge's CPU time at 10,000 releases, in
// BenchmarkPurgeAfterUpdate's profile). A Rescan takes again what the
// scan before it read of an archive that is still the same file: the same
// name, device, inode, size, modification and change time (the change
// time moves on every write and cannot be set back by a user), and had
// last changed at least archiveSettle before it was read: file times
// advance in clock ticks, so a file rewritten within the tick of the read
// before could show the same times (git's "racy" index entries). Where
// files have no inode number here (Windows) every archive is read.

// archiveSettle is how long before it was read an archive must have last
// changed for its read to be taken again: far more than any file
// system's time granularity (ext4's and XFS's follow the kernel's clock
// tick, FAT's is 2 s).
const archiveSettle = 3 * time.Second

// archiveKey identifies an archive's contents without reading them.
type archiveKey struct {
	name         string
	dev, ino     uint64
	size         int64
	mtime, ctime int64
}

// archiveRead is what readArchive returned for an archive.
type archiveRead struct {
	a   *hart.Archive
	err error
	// settled: the file had last changed archiveSettle before the read.
	settled bool
}

// keyOf is the key of the cache's file name as fi (its Lstat) shows it;
// ok is false where it cannot be told apart from another.
func keyOf(name string, fi fs.FileInfo) (archiveKey, bool) {
	dev, ino := fileinfo.ID(fi)
	ct := fileinfo.ChangeTime(fi)
	if ino == 0 || ct.IsZero() {
		return archiveKey{}, false
	}
	return archiveKey{name: name, dev: dev, ino: ino, size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: ct.UnixNano()}, true
}

// readArchiveOnce is readArchive of the cache's file name (fi its Lstat),
// or, in a Rescan, what the scan before read of it when it is the same
// file. What it read is kept with the inventory for the next Rescan.
func (sc *scanner) readArchiveOnce(cache *os.Root, name string, fi fs.FileInfo) (*hart.Archive, error) {
	key, ok := keyOf(name, fi)
	if !ok {
		return readArchive(cache, name)
	}
	r, found := archiveRead{}, false
	if sc.prev != nil {
		r, found = sc.prev.archives[key]
	}
	if !found || !r.settled {
		settle := archiveSettle
		if sc.opts.archiveSettle > 0 {
			settle = sc.opts.archiveSettle
		}
		// The real clock: file times are the kernel's, whatever the
		// scan's Now says.
		r.settled = time.Since(time.Unix(0, key.ctime)) >= settle && time.Since(time.Unix(0, key.mtime)) >= settle
		r.a, r.err = readArchive(cache, name)
	}
	if sc.archives == nil {
		sc.archives = map[archiveKey]archiveRead{}
	}
	sc.archives[key] = r
	return r.a, r.err
}

//go:build windows

package artifactcache

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/winfs"
	"github.com/hab-gc/hab-gc/retention"
)

// No O_NOFOLLOW or O_NONBLOCK: os.Root opens no FIFO on Windows, the
// entry was found a regular file by Lstat, and what was opened is checked
// again on its handle (openedID).
const (
	oNoFollow = 0
	oNonBlock = 0
)

// supported: Habitat's Windows cache (C:\hab\cache\artifacts,
// habitat-sh/habitat components/core/src/fs.rs CACHE_ARTIFACT_PATH under
// FS_ROOT_PATH) is read through os.Root, an archive's identity is its
// volume and file index, read on the handle that read it, and it is
// removed by that identity on a handle (removeHandle).
func supported() error { return nil }

// links: os's FileInfo on Windows carries no link count; removeHandle
// reads it on the handle.
func links(fs.FileInfo) uint64 { return 1 }

// openedID is the identity of the archive open as r: Windows' FileInfo
// from Lstat has no file number (fileinfo.ID is 0, 0), the handle has.
func openedID(r *os.File, fi fs.FileInfo) fileID {
	in, err := winfs.Stat(windows.Handle(r.Fd()))
	if err != nil {
		return idOf(fi) // compared with a handle's identity, never equal: kept
	}
	return handleID(in)
}

func handleID(in winfs.Info) fileID {
	return fileID{uint64(in.Volume), in.Index, in.Size, time.Unix(0, in.LastWrite.Nanoseconds())}
}

// removeHandle removes f on Windows in one step on one handle: the name
// opened relative to the cache directory's handle for DELETE without
// following a reparse point, its identity checked on that handle (volume,
// file index, size, modification time: the file that was read), and that
// very file marked for deletion (winfs.Delete), so that no other file can
// take its place between the check and the removal (Unix renames it to a
// dot-name first for that). An archive a process holds open without
// FILE_SHARE_DELETE (Habitat installing from it) cannot be opened so: it
// is kept, in use.
func (c *Cache) removeHandle(f File) (FileOutcome, bool) {
	out := FileOutcome{File: f.File, Status: retention.StatusKept}
	d, err := c.root.Open(".")
	if err != nil {
		out.Status, out.Reason = retention.StatusFailed, err.Error()
		return out, true
	}
	defer d.Close()
	h, err := winfs.Open(windows.Handle(d.Fd()), f.File, windows.DELETE|windows.FILE_WRITE_ATTRIBUTES, winfs.ShareAll,
		windows.FILE_OPEN, windows.FILE_NON_DIRECTORY_FILE)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		out.Reason = "already gone"
		return out, true
	case err != nil && winfs.InUse(err):
		out.Reason = string(retention.CodeInUse) + ": a process holds it open (" + err.Error() + "): left alone"
		return out, true
	case err != nil:
		out.Status, out.Reason = retention.StatusFailed, err.Error()
		return out, true
	}
	defer windows.CloseHandle(h)
	in, err := winfs.Stat(h)
	switch {
	case err != nil:
		out.Status, out.Reason = retention.StatusFailed, err.Error()
		return out, true
	case in.Reparse() || in.IsDir() || handleID(in) != f.id:
		out.Reason = string(retention.CodeChanged) + ": not the file that was read: left alone"
		return out, true
	}
	if err := winfs.Delete(h, in); err != nil {
		out.Status, out.Reason = retention.StatusFailed, err.Error()
		return out, true
	}
	out.Status, out.Bytes = retention.StatusRemoved, f.Size
	if in.Links > 1 {
		out.Bytes = 0 // another link keeps its data
	}
	return out, true
}

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

// os.Root opens no FIFO here, and openedID checks what was opened.
const (
	oNoFollow = 0
	oNonBlock = 0
)

// supported: Habitat's C:\hab\cache\artifacts (components/core/src/fs.rs
// CACHE_ARTIFACT_PATH); an archive is its volume and file index.
func supported() error { return nil }

// links: removeHandle reads the count on the handle.
func links(fs.FileInfo) uint64 { return 1 }

// openedID: Lstat's FileInfo has no file number here, the handle has.
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

// removeHandle checks and deletes f on one handle, so no other file can
// take its place between; one Habitat installs from (held without
// FILE_SHARE_DELETE) is kept, in use.
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

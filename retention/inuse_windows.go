//go:build windows

package retention

import (
	"os"
	"path"

	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/internal/winfs"
)

// heldOpen: a process holds a file open without FILE_SHARE_DELETE (a
// running program, a loaded DLL).
func heldOpen(err error) bool { return winfs.InUse(err) }

const heldOpenText = "Windows refused to move its directory (a file in it is open: a running program or a loaded DLL holds it, or an ACL forbids the move), so it is in use: kept"

// heldFile returns a file of rel a process holds open, "" when none is or
// it cannot be told.
func (a *applier) heldFile(rel string) string {
	top, err := a.root.Open(".")
	if err != nil {
		return ""
	}
	defer top.Close()
	dir, err := onefs.OpenDir(top, rel)
	if err != nil {
		return ""
	}
	defer dir.Close()
	held, _ := onefs.HeldOpen(dir)
	if held == "" {
		return ""
	}
	return path.Join(rel, held)
}

// removeEmptyDir removes d without following a reparse point, through its
// parent's handle where POSIX-semantics deletion is refused (Wine).
func (a *applier) removeEmptyDir(d string) error {
	err := a.root.Remove(d)
	if err == nil || os.IsNotExist(err) {
		return err
	}
	top, terr := a.root.Open(".")
	if terr != nil {
		return err
	}
	defer top.Close()
	parent, perr := onefs.OpenDir(top, path.Dir(d))
	if perr != nil {
		return err
	}
	defer parent.Close()
	return onefs.RemoveEmpty(parent, path.Base(d))
}

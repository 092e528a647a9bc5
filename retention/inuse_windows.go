//go:build windows

package retention

import (
	"os"
	"path"

	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/internal/winfs"
)

// heldOpen reports the error Windows gives when hab-gc moves a release's
// directory while a process holds a file in it open without
// FILE_SHARE_DELETE, as it holds a running program's image and each DLL
// it loaded (winfs.InUse).
func heldOpen(err error) bool { return winfs.InUse(err) }

const heldOpenText = "Windows refused to move its directory (a file in it is open: a running program or a loaded DLL holds it, or an ACL forbids the move), so it is in use: kept"

// heldFile returns a file in the release directory rel (store-relative)
// that a process holds open so that it cannot be deleted (a running
// program, a loaded DLL: onefs.HeldOpen), "" when none is or it cannot
// be told (the move and the deletion then say).
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

// removeEmptyDir removes the empty directory d (store-relative) without
// following a reparse point: through the root, else through its parent's
// handle (plain deletion, where the root's POSIX-semantics one is
// refused, as under Wine).
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

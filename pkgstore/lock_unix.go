//go:build unix

package pkgstore

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	lockExclusive = unix.LOCK_EX
	lockShared    = unix.LOCK_SH
)

// tryFlock takes a flock (how: lockExclusive or lockShared) on fd without
// waiting: false when another holds a conflicting one.
func tryFlock(fd uintptr, how int) (bool, error) {
	for {
		err := unix.Flock(int(fd), how|unix.LOCK_NB)
		switch err {
		case unix.EINTR:
			continue
		case unix.EWOULDBLOCK:
			return false, nil
		}
		return err == nil, err
	}
}

// flockHolders returns the pids that hold a flock on the file fi
// describes, from /proc/locks (Linux).
func flockHolders(fi fs.FileInfo) ([]int, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, errors.New("no inode number on this platform")
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	exact, byIno, err := parseLocks(f, uint64(unix.Major(uint64(st.Dev))), uint64(unix.Minor(uint64(st.Dev))), uint64(st.Ino))
	if err != nil {
		return nil, err
	}
	if exact != nil {
		return exact, nil
	}
	// Some file systems (btrfs, overlayfs) report another device number in
	// stat than in the lock table. An inode number alone may be another
	// file's: keep only the pids that have this very file open.
	var verified []int
	for _, pid := range byIno {
		if hasOpen(pid, fi) {
			verified = append(verified, pid)
		}
	}
	return verified, nil
}

// hasOpen reports whether process pid has the file fi describes open.
func hasOpen(pid int, fi fs.FileInfo) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if o, err := os.Stat(dir + "/" + e.Name()); err == nil && os.SameFile(o, fi) {
			return true
		}
	}
	return false
}

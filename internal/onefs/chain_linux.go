package onefs

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Chain holds open the directories on a path below a root directory,
// each opened from its parent's descriptor without following a symlink
// (openat with O_NOFOLLOW|O_DIRECTORY), so that work that moves from one
// directory of a tree to the next, as a removal does from one release to
// the next, opens only the directories that differ and never resolves a
// path from the root again.
//
// A directory held open may be moved while it is held: out of the tree,
// with a symlink or another directory put in its place. So every use
// checks the chain again first (Check): each held directory must still be
// what its name in its held parent is (same device and inode, not a
// symlink). The operations below act only on the last directory's
// descriptor, and only after that check.
//
// A Chain is not safe for concurrent use. The root descriptor stays the
// caller's.
type Chain struct {
	root  int
	links []link
	ops   int
}

// link is one directory of a Chain: its descriptor, its name in the
// previous one (or the root) and its identity.
type link struct {
	fd       int
	name     string
	dev, ino uint64
}

// NewChain starts a chain at the directory open as root (the caller's,
// not closed by the chain), holding nothing yet: Enter a directory first.
func NewChain(root *os.File) *Chain {
	return &Chain{root: int(root.Fd())}
}

// Ops counts the open and stat calls the chain made (see Usage.Ops).
func (c *Chain) Ops() int { return c.ops }

// parent is the descriptor of link i's parent.
func (c *Chain) parent(i int) int {
	if i == 0 {
		return c.root
	}
	return c.links[i-1].fd
}

// Enter makes the chain end at rel, a slash-separated directory path
// relative to the root ("" or "." for the root itself): the directories
// it shares with the chain as it was are kept, after checking them again
// (Check), and the rest opened one at a time from their parent without
// following a symlink; every one must be a directory. On error, the chain
// is left holding the directories checked and opened before it.
func (c *Chain) Enter(rel string) error {
	var parts []string
	for part := range strings.SplitSeq(rel, "/") {
		switch part {
		case "", ".":
			continue
		case "..":
			return &os.PathError{Op: "open", Path: rel, Err: unix.EINVAL}
		}
		parts = append(parts, part)
	}
	keep := 0
	for keep < len(parts) && keep < len(c.links) && c.links[keep].name == parts[keep] {
		keep++
	}
	c.truncate(keep)
	if err := c.Check(); err != nil {
		return &os.PathError{Op: "open", Path: rel, Err: err}
	}
	for _, part := range parts[keep:] {
		c.ops += 2
		fd, err := openDir(c.parent(len(c.links)), part)
		if err != nil {
			return &os.PathError{Op: "open", Path: rel, Err: err}
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return &os.PathError{Op: "open", Path: rel, Err: err}
		}
		c.links = append(c.links, link{fd: fd, name: part, dev: st.Dev, ino: st.Ino})
	}
	return nil
}

// Check verifies that every directory the chain holds is still what its
// name in its parent is: found there without following a symlink, with
// the same device and inode. A directory moved away since it was opened
// (out of the tree, perhaps, with a symlink left in its place) fails it
// with an error wrapping ErrChanged, and the chain lets go of it and of
// everything below it.
func (c *Chain) Check() error {
	for i, l := range c.links {
		c.ops++
		var st unix.Stat_t
		err := unix.Fstatat(c.parent(i), l.name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == nil && (st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Dev != l.dev || st.Ino != l.ino) {
			err = ErrChanged
		}
		if err != nil {
			path := c.path(i + 1)
			c.truncate(i)
			if errors.Is(err, ErrChanged) {
				return fmt.Errorf("%s was moved or replaced while it was held open: %w", path, ErrChanged)
			}
			return fmt.Errorf("checking %s: %w (%w)", path, err, ErrChanged)
		}
	}
	return nil
}

// Fd is the descriptor of the chain's last directory (the root's when it
// holds none). It stays the chain's.
func (c *Chain) Fd() int {
	return c.parent(len(c.links))
}

// Path is the chain's last directory, relative to the root.
func (c *Chain) Path() string { return c.path(len(c.links)) }

func (c *Chain) path(n int) string {
	names := make([]string, n)
	for i := range n {
		names[i] = c.links[i].name
	}
	if n == 0 {
		return "."
	}
	return strings.Join(names, "/")
}

// Lstat describes name in the last directory without following a
// symlink, after checking the chain.
func (c *Chain) Lstat(name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	if err := c.Check(); err != nil {
		return st, err
	}
	c.ops++
	err := unix.Fstatat(c.Fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return st, &os.PathError{Op: "lstat", Path: c.join(name), Err: err}
	}
	return st, nil
}

// Rename renames from to to, both names in the last directory, after
// checking the chain. It does not follow a symlink (rename never does).
func (c *Chain) Rename(from, to string) error {
	if err := c.Check(); err != nil {
		return err
	}
	fd := c.Fd()
	if err := unix.Renameat(fd, from, fd, to); err != nil {
		return &os.LinkError{Op: "rename", Old: c.join(from), New: c.join(to), Err: err}
	}
	return nil
}

// Sync fsyncs the last directory (one the chain opened itself: never a
// FIFO or anything but a directory).
func (c *Chain) Sync() error {
	if len(c.links) == 0 {
		return unix.Fsync(c.root)
	}
	return unix.Fsync(c.Fd())
}

// RemoveAll deletes name, a directory in the last directory, and
// everything in it as RemoveAll does (never following a symlink, never
// leaving name's mount), after checking the chain.
func (c *Chain) RemoveAll(name string) error {
	if err := c.Check(); err != nil {
		return err
	}
	var w walker
	defer w.closeAll()
	err := w.remove(c.Fd(), name)
	c.ops += w.ops
	return err
}

// PruneEmpty removes the last directory and then its parents, up to but
// not including the root, while they are empty, after checking the
// chain: rmdir(2) fails on a directory that is not empty (one an install
// has just put something in wins), and the pruning stops there. It
// returns how many it removed; the chain then ends at the first one left.
func (c *Chain) PruneEmpty() int {
	if c.Check() != nil {
		return 0
	}
	removed := 0
	for i := len(c.links) - 1; i >= 0; i-- {
		if unix.Unlinkat(c.parent(i), c.links[i].name, unix.AT_REMOVEDIR) != nil {
			break // ENOTEMPTY, EEXIST, ENOENT: someone else's now
		}
		c.truncate(i)
		removed++
	}
	return removed
}

func (c *Chain) join(name string) string {
	if len(c.links) == 0 {
		return name
	}
	return c.Path() + "/" + name
}

// truncate closes every link from the n-th on.
func (c *Chain) truncate(n int) {
	for i := len(c.links) - 1; i >= n; i-- {
		unix.Close(c.links[i].fd)
	}
	c.links = c.links[:n]
}

// Close closes every directory the chain holds (not the root).
func (c *Chain) Close() {
	c.truncate(0)
}

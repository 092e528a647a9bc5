package onefs

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Chain holds open the directories on a path below a root, each opened
// from its parent without following a symlink, so that moving from one
// release to the next opens only the directories that differ. A held
// directory may be moved away meanwhile, so every operation checks the
// chain first (Check). Not safe for concurrent use; the root stays the
// caller's.
type Chain struct {
	root  int
	links []link
	ops   int
}

type link struct {
	fd       int
	name     string
	dev, ino uint64
}

// NewChain starts an empty chain at root.
func NewChain(root *os.File) *Chain {
	return &Chain{root: int(root.Fd())}
}

func (c *Chain) Ops() int { return c.ops }

func (c *Chain) parent(i int) int {
	if i == 0 {
		return c.root
	}
	return c.links[i-1].fd
}

// Enter makes the chain end at rel ("" is the root), keeping the
// directories it shares with the chain after checking them.
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

// Check verifies that each held directory is still what its name in its
// parent is (no symlink, same device and inode); else ErrChanged, and the
// chain lets go of it and below.
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

// Fd is the last directory's descriptor, still the chain's.
func (c *Chain) Fd() int {
	return c.parent(len(c.links))
}

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

func (c *Chain) Sync() error {
	if len(c.links) == 0 {
		return unix.Fsync(c.root)
	}
	return unix.Fsync(c.Fd())
}

// RemoveAll is RemoveAll of name in the last directory.
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

// PruneEmpty removes the last directory and its parents, not the root,
// while they are empty (rmdir: an install that just put something there
// wins), and returns how many.
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

func (c *Chain) truncate(n int) {
	for i := len(c.links) - 1; i >= n; i-- {
		unix.Close(c.links[i].fd)
	}
	c.links = c.links[:n]
}

func (c *Chain) Close() {
	c.truncate(0)
}

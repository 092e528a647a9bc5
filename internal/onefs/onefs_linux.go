package onefs

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// Supported is true where Walk and RemoveAll are implemented.
const Supported = true

// ErrMountPoint is wrapped by the error RemoveAll returns when the tree
// holds a mount point.
var ErrMountPoint = errors.New("mount point inside the tree")

// ErrChanged is wrapped when a directory was replaced while being walked.
var ErrChanged = errors.New("the tree changed while being walked")

// MountError names a mount point met in a tree.
type MountError struct {
	// Path is relative to the top of the tree, slash-separated.
	Path string
}

func (e *MountError) Error() string {
	return fmt.Sprintf("%s is a mount point (another file system or a bind mount); nothing under it is touched", e.Path)
}

func (e *MountError) Unwrap() error { return ErrMountPoint }

// Usage is what Walk found.
type Usage struct {
	// Bytes is the space allocated (st_blocks × 512) to everything on the
	// top's mount, the top included, hard-linked files counted once. Zero
	// when Walk was not asked to measure.
	Bytes int64
	// Mounts are the mount points met (relative to the top, in walk
	// order); Walk does not enter them.
	Mounts []string
	// Ops counts the open and stat calls made; each resolves exactly one
	// name relative to an open directory. The work is linear: about two
	// per entry and three per directory.
	Ops int
}

// maxOpen bounds the descriptors a walk holds at once.
const maxOpen = 64

// info is what a walk needs to know of one file.
type info struct {
	mode        uint32 // S_IFMT bits
	dev, ino    uint64
	mnt         uint64 // mount ID; 0 when unknown
	mountRoot   bool   // statx says: the root of a mount
	nlink       uint64
	blocks      int64
	hasMntField bool
}

func (i info) isDir() bool { return i.mode&unix.S_IFMT == unix.S_IFDIR }

// StatxMask is what a walk asks statx for; a statx given to MeasureOpen
// must have asked for it too.
const StatxMask = unix.STATX_TYPE | unix.STATX_INO | unix.STATX_NLINK | unix.STATX_BLOCKS | unix.STATX_MNT_ID

// infoOf takes what a walk needs from a statx.
func infoOf(sx *unix.Statx_t) info {
	in := info{mode: uint32(sx.Mode), dev: unix.Mkdev(sx.Dev_major, sx.Dev_minor), ino: sx.Ino,
		nlink: uint64(sx.Nlink), blocks: int64(sx.Blocks) * 512}
	if sx.Mask&unix.STATX_MNT_ID != 0 {
		in.mnt, in.hasMntField = sx.Mnt_id, true
	}
	if sx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && sx.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 {
		in.mountRoot = true
	}
	return in
}

// stat describes name relative to dirfd without following a symlink (name
// "" describes dirfd itself).
func (w *walker) stat(dirfd int, name string) (info, error) {
	w.ops++
	flags := unix.AT_SYMLINK_NOFOLLOW | unix.AT_NO_AUTOMOUNT
	if name == "" {
		flags |= unix.AT_EMPTY_PATH
	}
	if !w.noStatx {
		var sx unix.Statx_t
		err := unix.Statx(dirfd, name, flags, StatxMask, &sx)
		if err == nil {
			return infoOf(&sx), nil
		}
		if !errors.Is(err, unix.ENOSYS) {
			return info{}, err
		}
		w.noStatx = true // before Linux 4.11: device numbers only
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, flags&^unix.AT_NO_AUTOMOUNT); err != nil {
		return info{}, err
	}
	return info{mode: st.Mode, dev: st.Dev, ino: st.Ino, nlink: uint64(st.Nlink), blocks: st.Blocks * 512}, nil
}

// frame is one directory on the walk's stack.
type frame struct {
	fd       int  // -1 while closed to bound descriptors
	borrowed bool // fd is the caller's: never closed
	dev, ino uint64
	name     string  // its name in its parent
	names    []entry // entries still to visit
}

// entry is a directory entry: its name and the type getdents reports
// (DT_UNKNOWN on file systems that do not say).
type entry struct {
	name string
	typ  uint8
}

// mayBeDir reports whether an entry must be examined as a directory.
func (e entry) mayBeDir() bool { return e.typ == unix.DT_DIR || e.typ == unix.DT_UNKNOWN }

type walker struct {
	top     info
	stack   []frame
	open    int // frames [0, lowOpen) are closed
	lowOpen int
	ops     int
	noStatx bool
	buf     []byte // for getdents
	// known gives what the caller already examined in the top directory
	// (MeasureOpen).
	known func(name string) *unix.Statx_t
}

// knownStat is known(name) for an entry of the top directory.
func (w *walker) knownStat(name string) *unix.Statx_t {
	if w.known == nil || len(w.stack) != 1 {
		return nil
	}
	return w.known(name)
}

// dirBuf returns the walk's getdents buffer.
func (w *walker) dirBuf() []byte {
	if w.buf == nil {
		w.buf = make([]byte, 8<<10)
	}
	return w.buf
}

// sameMount reports whether in lives on the top's mount.
func (w *walker) sameMount(in info) bool {
	if in.dev != w.top.dev {
		return false
	}
	if in.hasMntField && w.top.hasMntField && in.mnt != w.top.mnt {
		return false
	}
	return !in.mountRoot
}

// path is the slash-separated path of name in the top frame's tree.
func (w *walker) path(name string) string {
	parts := make([]string, 0, len(w.stack))
	for _, f := range w.stack[1:] {
		parts = append(parts, f.name)
	}
	if name != "" {
		parts = append(parts, name)
	}
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}

func (w *walker) closeAll() {
	for i := range w.stack {
		if w.stack[i].fd >= 0 && !w.stack[i].borrowed {
			unix.Close(w.stack[i].fd)
			w.stack[i].fd = -1
		}
	}
	w.stack = nil
}

func openDir(dirfd int, name string) (int, error) {
	return unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
}

// readNames reads every entry of an open directory (but "." and "..")
// with getdents on the descriptor itself: no name is resolved. buf holds
// the raw entries and is reused across directories.
func readNames(fd int, buf []byte) ([]entry, error) {
	var out []entry
	err := safeio.ReadDirents(fd, buf, func(name string, typ uint8) {
		out = append(out, entry{name: name, typ: typ})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// push enters the directory name of the top frame, already checked to be
// a directory on the top's mount (want): it is opened without following a
// symlink and checked again on the descriptor.
func (w *walker) push(name string, want info) error {
	parent := w.stack[len(w.stack)-1].fd
	w.ops++
	fd, err := openDir(parent, name)
	if err != nil {
		return fmt.Errorf("opening %s: %w", w.path(name), err)
	}
	got, err := w.stat(fd, "")
	if err != nil {
		unix.Close(fd)
		return fmt.Errorf("checking %s: %w", w.path(name), err)
	}
	if got.dev != want.dev || got.ino != want.ino {
		unix.Close(fd)
		return fmt.Errorf("%s: %w", w.path(name), ErrChanged)
	}
	if !w.sameMount(got) {
		unix.Close(fd)
		return &MountError{Path: w.path(name)}
	}
	names, err := readNames(fd, w.dirBuf())
	if err != nil {
		unix.Close(fd)
		return fmt.Errorf("reading %s: %w", w.path(name), err)
	}
	w.stack = append(w.stack, frame{fd: fd, dev: got.dev, ino: got.ino, name: name, names: names})
	w.open++
	for w.open > maxOpen && w.lowOpen < len(w.stack)-1 {
		f := &w.stack[w.lowOpen]
		w.lowOpen++
		if f.borrowed {
			continue
		}
		unix.Close(f.fd)
		f.fd = -1
		w.open--
	}
	return nil
}

// pop leaves the top frame; its parent's descriptor is reopened through
// ".." (and checked) if it was closed. It returns the popped frame's name.
func (w *walker) pop() (string, error) {
	n := len(w.stack) - 1
	child := w.stack[n]
	if parent := &w.stack[n-1]; parent.fd < 0 {
		w.ops += 2
		fd, err := openDir(child.fd, "..")
		if err != nil {
			return "", fmt.Errorf("reopening %s: %w", w.path(".."), err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Dev != parent.dev || st.Ino != parent.ino {
			unix.Close(fd)
			return "", fmt.Errorf("%s: %w", w.path(".."), ErrChanged)
		}
		parent.fd = fd
		w.open++
		w.lowOpen = n - 1
	}
	unix.Close(child.fd)
	w.open--
	w.stack = w.stack[:n]
	return child.name, nil
}

// start opens name relative to dirfd as the top of a walk.
func (w *walker) start(dirfd int, name string) error {
	w.ops++
	fd, err := openDir(dirfd, name)
	if err != nil {
		return err
	}
	top, err := w.stat(fd, "")
	if err != nil {
		unix.Close(fd)
		return err
	}
	names, err := readNames(fd, w.dirBuf())
	if err != nil {
		unix.Close(fd)
		return err
	}
	w.top = top
	w.stack = []frame{{fd: fd, dev: top.dev, ino: top.ino, name: name, names: names}}
	w.open = 1
	return nil
}

// Walk surveys the directory open as dir: the mount points in it (not
// entered) and, when measure is set, the space it occupies. A symlink is
// never followed. Without measure, only directories are examined.
func Walk(dir *os.File, measure bool) (Usage, error) {
	var w walker
	defer w.closeAll()
	u, err := w.walk(int(dir.Fd()), ".", measure)
	u.Ops = w.ops
	return u, err
}

// WalkAt is Walk of the directory name (one component, opened without
// following a symlink) in the open directory dirfd. buf, when not nil,
// holds directory entries while they are read (8 KiB is plenty) and may
// be reused from one walk to the next.
func WalkAt(dirfd int, name string, measure bool, buf []byte) (Usage, error) {
	w := walker{buf: buf}
	defer w.closeAll()
	u, err := w.walk(dirfd, name, measure)
	u.Ops = w.ops
	return u, err
}

// MeasureOpen measures, as Walk does, the directory open as fd, whose
// own statx (asked for StatxMask) is top. fd stays the caller's, and is
// read: its position in the directory must be at the start (a descriptor
// nobody has listed), and is left at the end. known,
// when not nil, gives the statx (asked for StatxMask) of an entry of that
// directory the caller has already examined through a descriptor of its
// own, or nil: such an entry is not examined again. This lets a reader
// that has just opened a directory and read some of its files measure it
// for the cost of listing it and examining the rest.
func MeasureOpen(fd int, top *safeio.Stat, known func(name string) *safeio.Stat, buf []byte) (Usage, error) {
	w := walker{buf: buf, known: known}
	defer w.closeAll()
	in := infoOf(top)
	if !in.isDir() {
		return Usage{}, unix.ENOTDIR
	}
	names, err := readNames(fd, w.dirBuf())
	if err != nil {
		return Usage{}, err
	}
	w.top = in
	w.stack = []frame{{fd: fd, borrowed: true, dev: in.dev, ino: in.ino, name: ".", names: names}}
	w.open = 1
	u, err := w.loop(true)
	u.Ops = w.ops
	return u, err
}

func (w *walker) walk(dirfd int, name string, measure bool) (Usage, error) {
	if err := w.start(dirfd, name); err != nil {
		return Usage{}, err
	}
	return w.loop(measure)
}

// loop walks from the started top frame.
func (w *walker) loop(measure bool) (Usage, error) {
	u := Usage{}
	if measure {
		u.Bytes = w.top.blocks
	}
	var seen map[[2]uint64]bool // files with several links, counted once
	for {
		f := &w.stack[len(w.stack)-1]
		if len(f.names) == 0 {
			if len(w.stack) == 1 {
				return u, nil
			}
			if _, err := w.pop(); err != nil {
				return u, err
			}
			continue
		}
		e := f.names[len(f.names)-1]
		f.names = f.names[:len(f.names)-1]
		if !measure && !e.mayBeDir() {
			continue
		}
		var in info
		var err error
		if sx := w.knownStat(e.name); sx != nil {
			in = infoOf(sx)
		} else {
			in, err = w.stat(f.fd, e.name)
		}
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return u, fmt.Errorf("%s: %w", w.path(e.name), err)
		}
		if !w.sameMount(in) {
			u.Mounts = append(u.Mounts, w.path(e.name))
			continue
		}
		if measure {
			id := [2]uint64{in.dev, in.ino}
			if in.isDir() || in.nlink <= 1 || !seen[id] {
				u.Bytes += in.blocks
			}
			if !in.isDir() && in.nlink > 1 {
				if seen == nil {
					seen = map[[2]uint64]bool{}
				}
				seen[id] = true
			}
		}
		if in.isDir() {
			if err := w.push(e.name, in); err != nil {
				var me *MountError
				if !errors.As(err, &me) {
					return u, err
				}
				u.Mounts = append(u.Mounts, me.Path)
			}
		}
	}
}

// RemoveAll deletes name, a directory relative to the open directory
// parent, and everything in it, never following a symlink and never
// leaving name's mount: it checks each directory before entering it and
// stops with a *MountError (errors.Is ErrMountPoint) at the first mount
// point it meets, having deleted what came before. Survey with Walk first
// to delete nothing when the tree holds a mount point. It returns the
// open and stat calls made (see Usage.Ops).
func RemoveAll(parent *os.File, name string) (ops int, err error) {
	var w walker
	defer w.closeAll()
	err = w.remove(int(parent.Fd()), name)
	return w.ops, err
}

func (w *walker) remove(pfd int, name string) error {
	if err := w.start(pfd, name); err != nil {
		return err
	}
	for {
		f := &w.stack[len(w.stack)-1]
		if len(f.names) == 0 {
			if len(w.stack) == 1 {
				break
			}
			child, err := w.pop()
			if err != nil {
				return err
			}
			if err := unix.Unlinkat(w.stack[len(w.stack)-1].fd, child, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
				return fmt.Errorf("removing %s: %w", w.path(child), err)
			}
			continue
		}
		e := f.names[len(f.names)-1]
		f.names = f.names[:len(f.names)-1]
		if e.mayBeDir() {
			in, err := w.stat(f.fd, e.name)
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			if err != nil {
				return fmt.Errorf("%s: %w", w.path(e.name), err)
			}
			if !w.sameMount(in) {
				return &MountError{Path: w.path(e.name)}
			}
			if in.isDir() {
				if err := w.push(e.name, in); err != nil {
					return err
				}
				continue
			}
		}
		// unlink(2) never follows a symlink and refuses a directory.
		if err := unix.Unlinkat(f.fd, e.name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("removing %s: %w", w.path(e.name), err)
		}
	}
	w.closeAll()
	if err := unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("removing %s: %w", name, err)
	}
	return nil
}

// OpenDir opens rel, a slash-separated path relative to the open directory
// dir, one component at a time without following any symlink; every
// component must be a directory.
func OpenDir(dir *os.File, rel string) (*os.File, error) {
	fd := int(dir.Fd())
	owned := -1
	for part := range strings.SplitSeq(rel, "/") {
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			if owned >= 0 {
				unix.Close(owned)
			}
			return nil, &os.PathError{Op: "open", Path: rel, Err: unix.EINVAL}
		}
		next, err := openDir(fd, part)
		if owned >= 0 {
			unix.Close(owned)
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: rel, Err: err}
		}
		fd, owned = next, next
	}
	if owned < 0 {
		next, err := openDir(fd, ".")
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: rel, Err: err}
		}
		owned = next
	}
	return os.NewFile(uintptr(owned), rel), nil
}

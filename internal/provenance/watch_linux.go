package provenance

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Watcher reports each directory renamed or made into a version
// directory of a store (FS_ROOT/hab/pkgs/ORIGIN/NAME/VERSION/NAME) on the
// store's file system, with the program that did it. Renames by hab-gc
// itself (putting back a release it had hidden) are not installs.
//
// The kernel names an event's directory by its file handle. The Watcher
// knows the handles of the store's directories down to the versions
// (name_to_handle_at, which opens nothing), learns those made since from
// their own events, which come first, and ignores every other directory
// without a system call: it never holds a descriptor on a directory of
// the store, which a run reading what processes hold would see.
type Watcher struct {
	events *os.File // the fanotify group
	store  string
	self   int
	dirs   map[string]dir // by handle
}

// dir is a directory of the store: its path and depth (0 the store, 3 a
// version directory).
type dir struct {
	path  string
	depth int
}

// Watch sets the watch of fsRoot's store. It needs fanotify's
// directory-entry events with their names (Linux 5.9, CAP_SYS_ADMIN).
func Watch(fsRoot string) (*Watcher, error) {
	store, err := filepath.EvalSymlinks(filepath.Join(fsRoot, "hab", "pkgs"))
	if err != nil {
		return nil, err
	}
	fd, err := unix.FanotifyInit(unix.FAN_CLASS_NOTIF|unix.FAN_REPORT_DFID_NAME|unix.FAN_CLOEXEC|unix.FAN_NONBLOCK, unix.O_RDONLY)
	if err != nil {
		return nil, fmt.Errorf("fanotify: %w", err)
	}
	w := &Watcher{events: os.NewFile(uintptr(fd), "fanotify"), store: store, self: os.Getpid(), dirs: map[string]dir{}}
	// A filesystem mark: a mark on each version directory would be set
	// too late for the rename that follows its mkdir at once
	// (components/common/src/command/package/install.rs unpack_artifact).
	err = unix.FanotifyMark(fd, unix.FAN_MARK_ADD|unix.FAN_MARK_FILESYSTEM,
		unix.FAN_MOVED_TO|unix.FAN_CREATE|unix.FAN_ONDIR, unix.AT_FDCWD, store)
	if err == nil {
		err = w.learn(store, 0)
	}
	if err != nil {
		w.events.Close()
		return nil, fmt.Errorf("fanotify mark on %s: %w", store, err)
	}
	return w, nil
}

// learn adds path, at depth, and the directories below it down to the
// versions. Only the store's own handle must be known.
func (w *Watcher) learn(path string, depth int) error {
	h, _, err := unix.NameToHandleAt(unix.AT_FDCWD, path, 0) // never follows a symlink
	if err != nil {
		return err
	}
	w.dirs[handleKey(h.Type(), h.Bytes())] = dir{path, depth}
	if depth == 3 {
		return nil
	}
	entries, _ := os.ReadDir(path)
	for _, e := range entries {
		if e.IsDir() {
			w.learn(filepath.Join(path, e.Name()), depth+1)
		}
	}
	return nil
}

func handleKey(typ int32, b []byte) string {
	return strconv.Itoa(int(typ)) + ":" + string(b)
}

// Run calls found with each install until ctx ends, then closes w.
func (w *Watcher) Run(ctx context.Context, found func(Record)) error {
	defer w.events.Close()
	stop := context.AfterFunc(ctx, func() { w.events.SetReadDeadline(time.Now()) })
	defer stop()
	buf := make([]byte, 64<<10)
	for {
		n, err := w.events.Read(buf)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("fanotify: %w", err)
		}
		w.read(buf[:n], found)
	}
}

// read handles one read's events: a directory's, with the handle of
// the directory it is in and its name.
func (w *Watcher) read(b []byte, found func(Record)) {
	for len(b) >= unix.FAN_EVENT_METADATA_LEN {
		m := (*unix.FanotifyEventMetadata)(unsafe.Pointer(&b[0]))
		if m.Event_len < unix.FAN_EVENT_METADATA_LEN || int(m.Event_len) > len(b) {
			return
		}
		if m.Mask&unix.FAN_ONDIR != 0 {
			if key, name, ok := dirEntry(b[m.Metadata_len:m.Event_len]); ok {
				w.event(key, name, int(m.Pid), found)
			}
		}
		b = b[m.Event_len:]
	}
}

// dirEntry parses an event's FAN_EVENT_INFO_TYPE_DFID_NAME record:
// header (4 bytes), fsid (8), struct file_handle, then the name.
func dirEntry(info []byte) (key, name string, ok bool) {
	if len(info) < 20 || info[0] != unix.FAN_EVENT_INFO_TYPE_DFID_NAME {
		return "", "", false
	}
	size := int(binary.NativeEndian.Uint32(info[12:]))
	typ := int32(binary.NativeEndian.Uint32(info[16:]))
	if 20+size > len(info) {
		return "", "", false
	}
	name, _, _ = strings.Cut(string(info[20+size:]), "\x00")
	return handleKey(typ, info[20:20+size]), name, name != "" && name != "." && name != ".." && !strings.Contains(name, "/")
}

func (w *Watcher) event(key, name string, pid int, found func(Record)) {
	parent, ok := w.dirs[key]
	if !ok {
		return // not a directory of the store
	}
	path := filepath.Join(parent.path, name)
	if parent.depth < 3 {
		w.learn(path, parent.depth+1) // a new origin, name or version
		return
	}
	if name[0] == '.' || pid == w.self {
		return // an install's temporary directory, or hab-gc's own
	}
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return // gone already
	}
	by := program(pid)
	if by == "hab-gc" {
		return // a run putting back a release it had hidden
	}
	rel, _ := filepath.Rel(w.store, path)
	found(Record{Ident: filepath.ToSlash(rel), By: by, PID: pid, Time: time.Now().UTC(), Dev: uint64(st.Dev), Ino: uint64(st.Ino)})
}

// program is the name of the program pid runs: its executable's, else its
// command name, else Unknown (it has ended).
func program(pid int) string {
	if pid <= 0 {
		return Unknown // not in this PID namespace
	}
	proc := "/proc/" + strconv.Itoa(pid)
	if exe, err := os.Readlink(proc + "/exe"); err == nil {
		return filepath.Base(strings.TrimSuffix(exe, " (deleted)"))
	}
	if comm, err := os.ReadFile(proc + "/comm"); err == nil && len(comm) > 1 {
		return strings.TrimSpace(string(comm))
	}
	return Unknown
}

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
type Watcher struct {
	events    *os.File // the fanotify group
	mount     *os.File // the store's directory, for open_by_handle_at
	store     string
	self      int
	elsewhere map[string]bool // handles of directories outside the store's version directories
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
	w := &Watcher{events: os.NewFile(uintptr(fd), "fanotify"), store: store, self: os.Getpid(), elsewhere: map[string]bool{}}
	// A filesystem mark: a mark on each version directory would be set
	// too late for the rename that follows its mkdir at once
	// (components/common/src/command/package/install.rs unpack_artifact).
	err = unix.FanotifyMark(fd, unix.FAN_MARK_ADD|unix.FAN_MARK_FILESYSTEM,
		unix.FAN_MOVED_TO|unix.FAN_CREATE|unix.FAN_ONDIR, unix.AT_FDCWD, store)
	if err == nil {
		w.mount, err = os.Open(store)
	}
	if err != nil {
		w.events.Close()
		return nil, fmt.Errorf("fanotify mark on %s: %w", store, err)
	}
	return w, nil
}

// Run calls found with each install until ctx ends, then closes w.
func (w *Watcher) Run(ctx context.Context, found func(Record)) error {
	defer w.mount.Close()
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
		if m.Mask&unix.FAN_ONDIR != 0 && int(m.Pid) != w.self {
			if handle, typ, name, ok := dirEntry(b[m.Metadata_len:m.Event_len]); ok {
				w.event(handle, typ, name, int(m.Pid), found)
			}
		}
		b = b[m.Event_len:]
	}
}

// dirEntry parses an event's FAN_EVENT_INFO_TYPE_DFID_NAME record:
// header (4 bytes), fsid (8), struct file_handle, then the name.
func dirEntry(info []byte) (handle []byte, typ int32, name string, ok bool) {
	if len(info) < 20 || info[0] != unix.FAN_EVENT_INFO_TYPE_DFID_NAME {
		return nil, 0, "", false
	}
	size := int(binary.NativeEndian.Uint32(info[12:]))
	typ = int32(binary.NativeEndian.Uint32(info[16:]))
	if 20+size > len(info) {
		return nil, 0, "", false
	}
	name, _, _ = strings.Cut(string(info[20+size:]), "\x00")
	return info[20 : 20+size], typ, name, true
}

func (w *Watcher) event(handle []byte, typ int32, name string, pid int, found func(Record)) {
	if name == "" || name[0] == '.' || w.elsewhere[string(handle)] {
		return
	}
	dir, err := w.path(handle, typ)
	rel, rerr := filepath.Rel(w.store, dir)
	if err != nil || rerr != nil || strings.Count(rel, string(filepath.Separator)) != 2 || strings.HasPrefix(rel, "..") {
		if len(w.elsewhere) > 4096 {
			clear(w.elsewhere)
		}
		w.elsewhere[string(handle)] = true
		return
	}
	ident := filepath.ToSlash(rel) + "/" + name
	var st unix.Stat_t
	if unix.Lstat(filepath.Join(dir, name), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return // gone already, or not a release
	}
	by := program(pid)
	if by == "hab-gc" {
		return // a run putting back a release it had hidden
	}
	found(Record{Ident: ident, By: by, PID: pid, Time: time.Now().UTC(), Dev: uint64(st.Dev), Ino: uint64(st.Ino)})
}

// path is the path of the directory a handle names.
func (w *Watcher) path(handle []byte, typ int32) (string, error) {
	fd, err := unix.OpenByHandleAt(int(w.mount.Fd()), unix.NewFileHandle(typ, handle), unix.O_PATH)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
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

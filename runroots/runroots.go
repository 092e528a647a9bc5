package runroots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hab-gc/hab-gc/internal/inuse"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrNoProc is wrapped by Scan's error when the proc root cannot be listed.
var ErrNoProc = errors.New("cannot list processes")

// DefaultProcRoot is where Linux mounts the proc file system.
const DefaultProcRoot = "/proc"

// Kind is how a process uses a release.
type Kind string

// Kinds, in the order a reason prefers them.
const (
	KindExe     Kind = "exe"     // it executes a file of the release
	KindMap     Kind = "map"     // it has a file of the release mapped
	KindFD      Kind = "fd"      // it has a file of the release open
	KindCwd     Kind = "cwd"     // its working directory is in the release
	KindRoot    Kind = "root"    // its root directory is in the release
	KindEnv     Kind = "environ" // its environment names the release
	KindCmdline Kind = "cmdline" // its command line names the release
)

// Use is one process using one release.
type Use struct {
	PID  int
	Comm string // the process's command name (/proc/PID/comm)
	// Ident is the release (fully qualified).
	Ident pkgstore.Ident
	Kind  Kind
	// File is the path inside the release ("" for the release directory
	// itself); for KindEnv, the variable's name instead.
	File string
	// Hidden is set when the path lies in a directory hab-gc hid the
	// release under.
	Hidden bool
}

// String says what the process does with the release, e.g. "process 4121
// (redis-server) executes bin/redis-server of it".
func (u Use) String() string {
	u.Comm, u.File = printable(u.Comm), printable(u.File)
	who := fmt.Sprintf("process %d (%s)", u.PID, u.Comm)
	file := u.File
	if file == "" {
		file = "it"
	}
	var s string
	switch u.Kind {
	case KindExe:
		s = who + " executes " + file + " of it"
		if u.File == "" {
			s = who + " executes it"
		}
	case KindMap:
		s = who + " has " + file + " mapped"
	case KindFD:
		s = who + " has " + file + " open"
	case KindCwd:
		s = who + " has its working directory in it"
		if u.File != "" {
			s += " (" + u.File + ")"
		}
	case KindRoot:
		s = who + " has its root directory in it"
	case KindEnv:
		s = who + " has it in its environment (" + u.File + ")"
	case KindCmdline:
		s = who + " names it on its command line"
	default:
		s = who + " uses it"
	}
	if u.Hidden {
		s += ", under the name hab-gc hid it by"
	}
	return s
}

// printable escapes, Go-style, a name that holds an invalid or
// unprintable character: a process chooses its own command name and file
// names, and reasons are printed on terminals.
func printable(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			q := strconv.Quote(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}

// Result is what Scan found.
type Result struct {
	// Uses are sorted by PID, then kind; one per process, release and kind.
	Uses []Use
	// Held are the files of installs in progress processes hold open
	// (see Held), sorted by PID; one per process and path.
	Held []Held
	// Processes is how many processes the proc root listed; Inspected how
	// many of them were read whole.
	Processes, Inspected int
	// Denied counts processes of which something could not be read for
	// lack of permission; Vanished those that exited while being read;
	// Failed those that could not be read for another reason (the reason
	// of the first such is in FailedExample).
	Denied, Vanished, Failed int
	FailedExample            string
	// deniedExample names the Denied process of the lowest PID,
	// deniedPID, e.g. "process 1 (systemd)".
	deniedExample string
	deniedPID     int
	// NotRoot is set when the scan did not run as root: processes of other
	// users may then be missing altogether (a proc root mounted with
	// hidepid), not merely counted in Denied.
	NotRoot bool
	// NoPtrace is set when the scan ran as root without CAP_SYS_PTRACE
	// (a hardened unit, a container): the fd, exe, cwd and root links
	// (and without CAP_SYS_ADMIN or CAP_PERFMON also maps and environ) of
	// processes holding capabilities it lacks are unreadable.
	NoPtrace bool
	// Partial, when set, says what this platform's scan never reads (on
	// Windows: open files, working directories, environments, command
	// lines); such a scan is Blind, and the releases to remove are
	// checked another way (Found.Probe).
	Partial string
	// HidePID is the proc root's hidepid mount option ("" when it hides
	// nothing).
	HidePID string
	// MapsDenied counts the Denied processes whose maps could not be read
	// either (their mappings are then unknown).
	MapsDenied int
	// ChildPIDNamespace is set when the scan ran in a PID namespace other
	// than the initial one (a container): processes outside it are not
	// listed.
	ChildPIDNamespace bool
}

// Scan reads every process under procRoot (DefaultProcRoot when empty) and
// returns the uses of the releases of the store inv was read from. It
// fails only when the proc root cannot be listed, or when ctx ends; off
// Linux and Windows it always fails with an error wrapping ErrNoProc and
// errors.ErrUnsupported.
//
// A path that does not name the store as given (or resolved) is matched by
// identity: a bind mount of the store, a chroot or another mount namespace
// shows its releases under other paths, but the release directory they lie
// in has the device and inode the inventory holds (see identity).
func Scan(ctx context.Context, procRoot string, inv *pkgstore.Inventory) (*Result, error) {
	if inv == nil {
		return nil, fmt.Errorf("runroots: %w: no inventory given", pkgstore.ErrNoStore)
	}
	if err := pkgstore.RequireFSRoot(inv.FSRoot); err != nil {
		return nil, fmt.Errorf("runroots: %w", err)
	}
	return scan(ctx, procRoot, inv)
}

// matcher maps absolute paths to releases of one store.
type matcher struct {
	stores   []string // absolute store paths, each ending in "/"
	caches   []string // absolute artifact cache paths, each ending in "/"
	storeDir string   // the store as given
	needles  [][]byte // a cheap test: a store path contains one of these
}

func newMatcher(fsRoot string) (*matcher, error) {
	if fsRoot == "" {
		fsRoot = "/"
	}
	abs, err := filepath.Abs(fsRoot)
	if err != nil {
		return nil, err
	}
	store := filepath.ToSlash(filepath.Join(abs, pkgstore.StoreDir))
	m := &matcher{storeDir: store, caches: cachePrefixes(abs)}
	cands := []string{store}
	if real, err := filepath.EvalSymlinks(store); err == nil && filepath.ToSlash(real) != store {
		cands = append(cands, filepath.ToSlash(real))
	}
	for _, s := range cands {
		m.stores = append(m.stores, strings.TrimSuffix(s, "/")+"/")
		needle := []byte("/" + path.Base(s) + "/")
		if !slices.ContainsFunc(m.needles, func(n []byte) bool { return bytes.Equal(n, needle) }) {
			m.needles = append(m.needles, needle)
		}
	}
	return m, nil
}

// match maps an absolute path to the release it lies in.
func (m *matcher) match(p string) (id pkgstore.Ident, file string, hidden, ok bool) {
	p = strings.TrimSuffix(p, " (deleted)")
	if !strings.HasPrefix(p, "/") {
		return id, "", false, false
	}
	p = path.Clean(p)
	for _, s := range m.stores {
		rest, found := strings.CutPrefix(p, s)
		if !found {
			continue
		}
		parts := strings.SplitN(rest, "/", 5)
		if len(parts) < 4 {
			return id, "", false, false
		}
		release := parts[3]
		if strings.HasPrefix(release, pkgstore.DebrisPrefix) {
			if release, hidden = inuse.HiddenRelease(release); !hidden {
				return id, "", false, false // not a name hab-gc makes
			}
		} else if strings.HasPrefix(release, pkgstore.InstallTempPrefix) {
			return id, "", false, false // an install in progress, not a release yet
		}
		id, err := pkgstore.ParseFullIdent(parts[0] + "/" + parts[1] + "/" + parts[2] + "/" + release)
		if err != nil {
			return id, "", false, false
		}
		if len(parts) == 5 {
			file = parts[4]
		}
		return id, file, hidden, true
	}
	return id, "", false, false
}

// mapsPath returns the path of a file-backed line of /proc/PID/maps:
// "address perms offset dev inode   path". Anonymous mappings (inode 0,
// [heap], [stack]...) have none.
func mapsPath(line []byte) (string, bool) {
	p, ok := mapsPathBytes(line)
	return string(p), ok
}

// mapsPathBytes is mapsPath, in line.
func mapsPathBytes(line []byte) ([]byte, bool) {
	line = bytes.TrimRight(line, "\n")
	rest := line
	var inode []byte
	for i := range 5 {
		rest = bytes.TrimLeft(rest, " ")
		end := bytes.IndexByte(rest, ' ')
		if end < 0 {
			return nil, false
		}
		if i == 4 {
			inode = rest[:end]
		}
		rest = rest[end:]
	}
	rest = bytes.TrimLeft(rest, " ")
	if len(rest) == 0 || rest[0] != '/' || bytes.Equal(inode, []byte("0")) {
		return nil, false
	}
	return rest, true
}

// storePaths returns every path in s that starts with one of the
// prefixes (each ending in "/") at a word boundary, up to the next
// separator (":", ";", ",", whitespace, quotes, "=").
func storePaths(s string, prefixes []string) []string {
	var out []string
	for _, pre := range prefixes {
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], pre)
			if j < 0 {
				break
			}
			start := i + j
			i = start + 1
			if start > 0 && !isSep(s[start-1]) {
				continue
			}
			end := start + len(pre)
			for end < len(s) && !isSep(s[end]) {
				end++
			}
			out = append(out, s[start:end])
		}
	}
	return out
}

func isSep(c byte) bool {
	switch c {
	case ':', ';', ',', ' ', '\t', '\n', '\r', '"', '\'', '=', '(', ')', '[', ']', '{', '}', '<', '>', '|', '&', '@', 0:
		return true
	}
	return false
}

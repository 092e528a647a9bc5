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

// useKind is how a process uses a release.
type useKind string

// Kinds, in the order a reason prefers them.
const (
	kindExe     useKind = "exe"
	kindMap     useKind = "map"
	kindFD      useKind = "fd"
	kindCwd     useKind = "cwd"
	kindRoot    useKind = "root"
	kindEnv     useKind = "environ"
	kindCmdline useKind = "cmdline"
)

// procUse is one process using one release.
type procUse struct {
	PID   int
	Comm  string
	Ident pkgstore.Ident
	Kind  useKind
	// File is the path inside the release; for kindEnv, the variable.
	File string
	// Hidden: the path is in the directory hab-gc hid the release under.
	Hidden bool
}

// String is the reason's text, e.g. "process 4121 (redis-server)
// executes bin/redis-server of it".
func (u procUse) String() string {
	u.Comm, u.File = printable(u.Comm), printable(u.File)
	who := fmt.Sprintf("process %d (%s)", u.PID, u.Comm)
	file := u.File
	if file == "" {
		file = "it"
	}
	var s string
	switch u.Kind {
	case kindExe:
		s = who + " executes " + file + " of it"
		if u.File == "" {
			s = who + " executes it"
		}
	case kindMap:
		s = who + " has " + file + " mapped"
	case kindFD:
		s = who + " has " + file + " open"
	case kindCwd:
		s = who + " has its working directory in it"
		if u.File != "" {
			s += " (" + u.File + ")"
		}
	case kindRoot:
		s = who + " has its root directory in it"
	case kindEnv:
		s = who + " has it in its environment (" + u.File + ")"
	case kindCmdline:
		s = who + " names it on its command line"
	default:
		s = who + " uses it"
	}
	if u.Hidden {
		s += ", under the name hab-gc hid it by"
	}
	return s
}

// printable escapes a name a process chose, for terminals.
func printable(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			q := strconv.Quote(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}

// procScan is what Scan found.
type procScan struct {
	// Uses are sorted by PID, then kind; one per process, release and kind.
	Uses []procUse
	// procHeld are sorted by PID; one per process and path.
	Held []procHeld
	// Inspected processes were read whole. Denied ones lacked permission,
	// Vanished ones exited meanwhile, Failed ones failed otherwise (the
	// first as FailedExample).
	Processes, Inspected     int
	Denied, Vanished, Failed int
	FailedExample            string
	deniedExample            string // the lowest Denied PID, e.g. "process 1 (systemd)"
	deniedPID                int
	// NotRoot: other users' processes may be missing altogether (hidepid).
	NotRoot bool
	// NoPtrace: root without CAP_SYS_PTRACE cannot read the links of
	// processes holding capabilities it lacks.
	NoPtrace bool
	// Partial says what this platform never reads (Windows).
	Partial string
	// HidePID is the proc root's hidepid option ("" when it hides nothing).
	HidePID string
	// MapsDenied counts Denied processes whose maps were unreadable too.
	MapsDenied        int
	ChildPIDNamespace bool
}

// scanProcs reads every process under procRoot (DefaultProcRoot when empty)
// for the releases of inv's store they use. It fails only when the proc
// root cannot be listed or ctx ends; off Linux and Windows always
// (ErrNoProc, errors.ErrUnsupported).
func scanProcs(ctx context.Context, procRoot string, inv *pkgstore.Inventory) (*procScan, error) {
	if inv == nil {
		return nil, fmt.Errorf("runroots: %w: no inventory given", pkgstore.ErrNoStore)
	}
	if err := pkgstore.RequireFSRoot(inv.FSRoot); err != nil {
		return nil, fmt.Errorf("runroots: %w", err)
	}
	return scan(ctx, procRoot, inv)
}

// Executing returns the releases of pkg that a process under procRoot
// executes, with scanProcs' errors.
func Executing(ctx context.Context, procRoot string, inv *pkgstore.Inventory, pkg pkgstore.Ident) ([]pkgstore.Ident, error) {
	res, err := scanProcs(ctx, procRoot, inv)
	if err != nil {
		return nil, err
	}
	var ids []pkgstore.Ident
	for _, u := range res.Uses {
		if u.Kind == kindExe && u.Ident.Package() == pkg.Package() && !slices.Contains(ids, u.Ident) {
			ids = append(ids, u.Ident)
		}
	}
	return ids, nil
}

// matcher maps absolute paths to releases of one store.
type matcher struct {
	stores   []string // as given and resolved, each ending in "/"
	caches   []string // the artifact cache likewise
	storeDir string   // the store as given
	needles  [][]byte // a store path contains one of these
}

func newMatcher(fsRoot string) (*matcher, error) {
	if fsRoot == "" {
		fsRoot = "/"
	}
	abs, err := filepath.Abs(fsRoot)
	if err != nil {
		return nil, err
	}
	store := filepath.Join(abs, pkgstore.StoreDir)
	m := &matcher{storeDir: filepath.ToSlash(store), stores: slashDirs(store), caches: slashDirs(filepath.Join(abs, pkgstore.ArtifactCacheDir))}
	for _, s := range m.stores {
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
		id, hidden, ok = releaseOf(strings.Join(parts[:3], "/"), parts[3])
		if !ok {
			return id, "", false, false
		}
		if len(parts) == 5 {
			file = parts[4]
		}
		return id, file, hidden, true
	}
	return id, "", false, false
}

// releaseOf is the release the directory name (RELEASE, or a name hab-gc
// hid it under) in onv (ORIGIN/NAME/VERSION) holds.
func releaseOf(onv, name string) (id pkgstore.Ident, hidden, ok bool) {
	release := name
	if strings.HasPrefix(name, pkgstore.DebrisPrefix) {
		if release, hidden = inuse.HiddenRelease(name); !hidden {
			return id, false, false
		}
	} else if strings.HasPrefix(name, pkgstore.InstallTempPrefix) {
		return id, false, false // not a release yet
	}
	id, err := pkgstore.ParseFullIdent(onv + "/" + release)
	return id, hidden, err == nil
}

// mapsPath returns the path and inode of a file-backed line of
// /proc/PID/maps ("address perms offset dev inode   path"), in line.
func mapsPath(line []byte) ([]byte, uint64, bool) {
	line = bytes.TrimRight(line, "\n")
	rest := line
	var inode []byte
	for i := range 5 {
		rest = bytes.TrimLeft(rest, " ")
		end := bytes.IndexByte(rest, ' ')
		if end < 0 {
			return nil, 0, false
		}
		if i == 4 {
			inode = rest[:end]
		}
		rest = rest[end:]
	}
	rest = bytes.TrimLeft(rest, " ")
	ino, _ := strconv.ParseUint(string(inode), 10, 64)
	if len(rest) == 0 || rest[0] != '/' || bytes.Equal(inode, []byte("0")) {
		return nil, 0, false
	}
	return rest, ino, true
}

// storePaths returns every path in s that starts with one of the
// prefixes at a word boundary, up to the next separator.
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

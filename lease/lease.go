package lease

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// RelDir is where leases live, relative to the FS root.
const RelDir = "hab/sup/default/hab-gc/leases"

// Suffix ends every lease file's name.
const Suffix = ".lease"

// maxSize caps a lease file's size.
const maxSize = 1 << 20

// ErrBadLease is wrapped by Read's error for a live lease that cannot be
// read or parsed: what it protects is then unknown.
var ErrBadLease = errors.New("unreadable lease")

// Dir returns the lease directory of an FS root.
func Dir(fsRoot string) string { return filepath.Join(fsRoot, RelDir) }

// Lease is a lease this process holds.
type Lease struct {
	f    *os.File
	dir  *os.Root
	name string
	// Idents are what the lease protects.
	Idents []pkgstore.Ident
}

// Acquire takes a lease on idents under fsRoot (Habitat's FS_ROOT), for
// holder (a short description shown in hab-gc's reasons, such as "hab pkg
// install core/redis"). The lease lives until Release, or until this
// process ends. Partial idents (origin/name, origin/name/version) protect
// every installed release that satisfies them.
func Acquire(fsRoot, holder string, idents ...pkgstore.Ident) (*Lease, error) {
	if len(idents) == 0 {
		return nil, errors.New("lease: no idents")
	}
	if strings.ContainsAny(holder, "\n\r") {
		return nil, errors.New("lease: holder must be one line")
	}
	root, err := os.OpenRoot(fsRoot)
	if err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	defer root.Close()
	if err := root.MkdirAll(RelDir, 0o755); err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	dir, err := root.OpenRoot(RelDir)
	if err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	var body bytes.Buffer
	fmt.Fprintf(&body, "# pid %d: %s\n", os.Getpid(), holder)
	for _, id := range idents {
		fmt.Fprintln(&body, id)
	}
	id := rand.Text()[:16]
	tmp, name := ".new-"+id, id+Suffix
	f, err := safeio.OpenAt(dir, tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		if err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err == nil {
			if _, err = f.Write(body.Bytes()); err == nil {
				if err = f.Sync(); err == nil {
					err = dir.Rename(tmp, name)
				}
			}
		}
		if err != nil {
			dir.Remove(tmp)
			f.Close()
		}
	}
	if err != nil {
		dir.Close()
		return nil, fmt.Errorf("lease: %w", err)
	}
	syncDir(dir)
	return &Lease{f: f, dir: dir, name: name, Idents: slices.Clone(idents)}, nil
}

// Path is the lease file's path under the lease directory.
func (l *Lease) Path() string { return l.name }

// Release ends the lease: its file is removed, then its lock dropped.
// Releasing twice does nothing.
func (l *Lease) Release() error {
	if l.f == nil {
		return nil
	}
	err := l.dir.Remove(l.name)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	syncDir(l.dir)
	l.f.Close()
	l.dir.Close()
	l.f = nil
	return err
}

func syncDir(dir *os.Root) {
	if f, err := dir.Open("."); err == nil {
		f.Sync()
		f.Close()
	}
}

// Held is a live lease someone holds.
type Held struct {
	// File is the lease file's name in the lease directory.
	File string
	// Holder is what its holder said it is ("pid 123: hab pkg install
	// core/redis"), from its first comment line.
	Holder string
	Idents []pkgstore.Ident
}

// Read returns the live leases under fsRoot, by file name, and removes
// dead ones (a lease file nobody holds locked), returning how many. No
// lease directory means no lease. A live lease that cannot be read or
// parsed, or an entry that is not a regular file, is an error wrapping
// ErrBadLease: the caller must then assume anything may be leased.
func Read(fsRoot string) (live []Held, dead int, err error) {
	dir, err := os.OpenRoot(Dir(fsRoot))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrBadLease, err)
	}
	defer dir.Close()
	d, err := dir.Open(".")
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrBadLease, err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrBadLease, err)
	}
	slices.Sort(names)
	for _, name := range names {
		if !strings.HasSuffix(name, Suffix) {
			continue // a lease being made (.new-*), or not ours
		}
		h, alive, err := readOne(dir, name)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %s: %v", ErrBadLease, path.Join(Dir(fsRoot), name), err)
		}
		if !alive {
			dead++
			continue
		}
		live = append(live, h)
	}
	return live, dead, nil
}

// readOne reads one lease file: live when another process holds its lock;
// dead ones are removed while this process holds a shared lock on them.
func readOne(dir *os.Root, name string) (Held, bool, error) {
	f, err := safeio.OpenAt(dir, name, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return Held{}, false, nil // released meanwhile
	}
	if err != nil {
		return Held{}, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Held{}, false, err
	}
	if err := safeio.Regular(fi); err != nil {
		return Held{}, false, err
	}
	err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
	if err == nil {
		// Nobody holds it: its holder is gone. Remove it if it is still
		// this file (a dead lease never comes back to life).
		if cur, err := dir.Lstat(name); err == nil && os.SameFile(cur, fi) {
			dir.Remove(name)
		}
		return Held{}, false, nil
	}
	if !errors.Is(err, unix.EWOULDBLOCK) {
		return Held{}, false, err
	}
	body, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return Held{}, false, err
	}
	if len(body) > maxSize {
		return Held{}, false, fmt.Errorf("larger than %d bytes", maxSize)
	}
	h, err := Parse(body)
	h.File = name
	return h, true, err
}

// Parse reads a lease file's content: idents one per line, blank lines
// and lines starting with # ignored (the first such line names the
// holder).
func Parse(body []byte) (Held, error) {
	var h Held
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, maxSize)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "#"):
			if h.Holder == "" {
				h.Holder = strings.TrimSpace(strings.TrimPrefix(line, "#"))
			}
		default:
			id, err := pkgstore.ParseIdent(line)
			if err != nil {
				return h, fmt.Errorf("line %d: %w", n, err)
			}
			h.Idents = append(h.Idents, id)
		}
	}
	if err := sc.Err(); err != nil {
		return h, err
	}
	return h, nil
}

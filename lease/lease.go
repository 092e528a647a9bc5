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

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// relDir is where leases live, relative to the FS root.
const relDir = "hab/sup/default/hab-gc/leases"

// suffix ends every lease file's name.
const suffix = ".lease"

const maxSize = 1 << 20

// ErrBadLease is wrapped by Read's error for a live lease that cannot be
// read: what it protects is unknown.
var ErrBadLease = errors.New("unreadable lease")

// Dir returns the lease directory of an FS root.
func Dir(fsRoot string) string { return filepath.Join(fsRoot, relDir) }

// Lease is a lease this process holds.
type Lease struct {
	f          *os.File
	dir        *leaseDir
	name, path string
	Idents     []pkgstore.Ident
}

// Acquire takes a lease on idents under fsRoot for holder (shown in
// hab-gc's reasons, e.g. "hab pkg install core/redis"), until Release or
// this process ends. An FS root without a store is refused
// (pkgstore.ErrNoStore).
func Acquire(fsRoot, holder string, idents ...pkgstore.Ident) (*Lease, error) {
	if err := pkgstore.RequireFSRoot(fsRoot); err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	if len(idents) == 0 {
		return nil, errors.New("lease: no idents")
	}
	for _, id := range idents {
		if err := validIdent(id); err != nil {
			return nil, fmt.Errorf("lease: %w", err)
		}
	}
	if strings.ContainsAny(holder, "\n\r") {
		return nil, errors.New("lease: holder must be one line")
	}
	// An FS root without hab/pkgs is a typo: nothing is created there.
	if fi, err := os.Stat(filepath.Join(fsRoot, pkgstore.StoreDir)); err != nil || !fi.IsDir() {
		why := "not a directory"
		if err != nil {
			why = err.Error()
		}
		return nil, fmt.Errorf("lease: %w: %s", pkgstore.ErrNoStore, why)
	}
	dir, err := openLeaseDir(fsRoot, true, true)
	if err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	var body bytes.Buffer
	fmt.Fprintf(&body, "# pid %d: %s\n", os.Getpid(), holder)
	for _, id := range idents {
		fmt.Fprintln(&body, id)
	}
	id := rand.Text()[:16]
	tmp, name := ".new-"+id, id+suffix
	f, err := dir.open(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		if err = flockNB(f, true); err == nil {
			if _, err = f.Write(body.Bytes()); err == nil {
				if err = f.Sync(); err == nil {
					err = dir.rename(tmp, name)
				}
			}
		}
		if err != nil {
			dir.remove(tmp)
			f.Close()
		}
	}
	if err != nil {
		dir.Close()
		return nil, fmt.Errorf("lease: %w", err)
	}
	dir.sync()
	return &Lease{f: f, dir: dir, name: name, path: filepath.Join(Dir(fsRoot), name), Idents: slices.Clone(idents)}, nil
}

// Release removes the lease's file, then drops its lock. Releasing twice,
// or a nil lease, does nothing.
func (l *Lease) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.dir.remove(l.name)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	l.dir.sync()
	l.f.Close()
	l.dir.Close()
	l.f = nil
	return err
}

// Held is a live lease someone holds.
type Held struct {
	File   string // the name in the lease directory
	Holder string // its first comment line, e.g. "pid 123: hab pkg install core/redis"
	Idents []pkgstore.Ident
}

// Read returns the live leases under fsRoot, by file name, and counts the
// dead ones, changing nothing. A lease that cannot be read, an entry that
// is not a regular file, or a symlinked lease directory is an error
// wrapping ErrBadLease: anything may be leased.
func Read(fsRoot string) (live []Held, dead int, err error) {
	return scan(fsRoot, false)
}

// Sweep removes the dead leases under fsRoot, for a program about to
// change the store; its errors are Read's.
func Sweep(fsRoot string) (removed int, err error) {
	_, removed, err = scan(fsRoot, true)
	return removed, err
}

func scan(fsRoot string, sweep bool) (live []Held, dead int, err error) {
	if err := pkgstore.RequireFSRoot(fsRoot); err != nil {
		return nil, 0, fmt.Errorf("lease: %w", err)
	}
	dir, err := openLeaseDir(fsRoot, sweep, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", ErrBadLease, err)
	}
	defer dir.Close()
	names, err := dir.names()
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrBadLease, err)
	}
	slices.Sort(names)
	for _, name := range names {
		if !strings.HasSuffix(name, suffix) {
			continue // a lease being made (.new-*), or not ours
		}
		h, alive, err := readOne(dir, name, sweep)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %s: %v", ErrBadLease, path.Join(dir.path, name), err)
		}
		if !alive {
			dead++
			continue
		}
		live = append(live, h)
	}
	return live, dead, nil
}

// readOne reads one lease file: live when another process holds its
// lock. With sweep, a dead one is removed under this process's shared
// lock.
func readOne(dir *leaseDir, name string, sweep bool) (Held, bool, error) {
	f, err := dir.open(name, os.O_RDONLY|oNonBlock, 0)
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
	err = flockNB(f, false)
	if err == nil {
		if sweep && dir.same(name, f) {
			dir.remove(name) // a failure leaves a dead lease: harmless
		}
		return Held{}, false, nil
	}
	if !errors.Is(err, errWouldBlock) {
		return Held{}, false, err
	}
	body, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return Held{}, false, err
	}
	if len(body) > maxSize {
		return Held{}, false, fmt.Errorf("larger than %d bytes", maxSize)
	}
	h, err := parse(body)
	h.File = name
	return h, true, err
}

// parse reads a lease file; its first comment names the holder.
func parse(body []byte) (Held, error) {
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

// ErrSymlink is wrapped by the error of a lease directory reached
// through a symlink.
var ErrSymlink = errors.New("lease directory is reached through a symlink, which hab-gc does not follow")

// ErrBadIdent is wrapped by Acquire's error for an ident that names no
// package, or a release without its version.
var ErrBadIdent = errors.New("not an ident a lease can hold")

// validIdent refuses what would be written as another ident (Ident{} as
// "/", a release without its version as origin/name).
func validIdent(id pkgstore.Ident) error {
	parsed, err := pkgstore.ParseIdent(id.String())
	if err != nil || parsed != id || id.Origin == "" || id.Name == "" {
		return fmt.Errorf("%w: %+v (want origin/name, origin/name/version or origin/name/version/release)", ErrBadIdent, id)
	}
	return nil
}

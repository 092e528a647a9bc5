package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// FileName is the journal's file name in its directory.
const FileName = "history.jsonl"

// Defaults for Journal.
const (
	defaultMaxSize = 8 << 20 // bytes per file before rotation
	defaultKeep    = 4       // rotated files kept (history.jsonl.1 ... .4)
)

// DefaultLockTimeout is how long an append waits for another writer's
// lock on the journal before giving up (ErrBusy). An append holds it for
// milliseconds; a lock held longer is someone else's (an operator's
// flock, a stuck process), and a run must not wait on it.
const DefaultLockTimeout = 10 * time.Second

// ErrBusy is wrapped by the error of an append that gave up waiting for
// the journal's lock (LockTimeout, or its context ended): nothing was
// written.
var ErrBusy = errors.New("journal is locked by another process")

// readLimit caps what Read reads of one file: far above MaxSize.
const readLimit = 256 << 20

// ErrUnsafe is wrapped by the error of an append to a journal that is not
// a regular file with one link (a symlink, a hard link, a FIFO...): it is
// never written.
var ErrUnsafe = errors.New("journal is not a regular file with one link")

// Journal is the history file in a directory, and its rotated
// predecessors.
type Journal struct {
	// Dir holds the journal (ForFSRoot names a store's); empty is refused
	// (pkgstore.ErrNoStore).
	Dir string
	// FSRoot, when set, is the FS root Dir lies under (ForFSRoot sets
	// both): no directory from FSRoot down to the journal may then be a
	// symlink. Each is opened (made, when missing) one at a time without
	// following one, and an append through a symlinked hab, hab/sup,
	// hab/sup/default or hab/sup/default/hab-gc fails naming it
	// (safeio.ErrSymlink) and writes nothing anywhere. FSRoot itself may
	// be a symlink: it is the caller's choice. Without FSRoot, Dir is
	// made as given and only its last component is opened without
	// following a symlink.
	FSRoot string
	// MaxSize is the size past which the file is rotated before an
	// append (default DefaultMaxSize).
	MaxSize int64
	// Keep is how many rotated files are kept (default DefaultKeep).
	Keep int
	// LockTimeout bounds the wait for another writer's lock (default
	// DefaultLockTimeout; negative: try once).
	LockTimeout time.Duration
}

func (j Journal) keep() int {
	if j.Keep <= 0 {
		return defaultKeep
	}
	return j.Keep
}

// ForFSRoot is the journal of the store under fsRoot
// (FSROOT/hab/sup/default/hab-gc), with FSRoot set. An empty fsRoot is an
// error wrapping pkgstore.ErrNoStore (pkgstore.RequireFSRoot).
func ForFSRoot(fsRoot string) (Journal, error) {
	if err := pkgstore.RequireFSRoot(fsRoot); err != nil {
		return Journal{}, fmt.Errorf("history: %w", err)
	}
	return Journal{Dir: filepath.Join(fsRoot, "hab", "sup", "default", "hab-gc"), FSRoot: fsRoot}, nil
}

// errNoDir is the error of a Journal without a Dir, which would be the
// working directory.
var errNoDir = fmt.Errorf("history: the journal's Dir is empty: %w", pkgstore.ErrNoStore)

// rotated is the name of the n-th rotated file (0: the journal itself).
func rotated(n int) string {
	if n == 0 {
		return FileName
	}
	return FileName + "." + strconv.Itoa(n)
}

// AppendContext writes recs, one JSON line each, with one write on an
// O_APPEND descriptor, and fsyncs them. It creates the directory when
// missing (with FSRoot set, never through a symlink: see FSRoot). It never blocks for long: while another process holds the
// journal's lock it waits at most LockTimeout, and not past the end of
// ctx (an ended ctx still gets one try), then fails wrapping ErrBusy.
func (j Journal) AppendContext(ctx context.Context, recs []Record) error {
	if j.Dir == "" {
		return errNoDir
	}
	if len(recs) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return j.appendData(ctx, buf.Bytes())
}

// Notice is a line or file Read skipped.
type Notice struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Last says the line was the file's last: a crash cut it mid-write.
	Last bool   `json:"last,omitempty"`
	Text string `json:"text"`
}

func (n Notice) String() string {
	if n.Line == 0 {
		return fmt.Sprintf("%s: %s", n.File, n.Text)
	}
	return fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Text)
}

// Read returns every record of the journal and its rotated files, oldest
// first. Lines that are not records are skipped with a Notice, as are
// files that cannot be read as journals (too large, not regular); err is
// set only when the directory itself cannot be read. A missing journal
// has no records.
func (j Journal) Read() (recs []Record, notices []Notice, err error) {
	if j.Dir == "" {
		return nil, nil, errNoDir
	}
	if _, err := os.Lstat(j.Dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	for n := j.keep(); n >= 0; n-- {
		name := filepath.Join(j.Dir, rotated(n))
		b, err := safeio.ReadFile(name, readLimit, safeio.NoFollow)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			notices = append(notices, Notice{File: name, Text: "skipped: " + err.Error()})
			continue
		}
		r, ns := parseFile(name, b)
		recs, notices = append(recs, r...), append(notices, ns...)
	}
	return recs, notices, nil
}

// parseFile parses a journal file's lines.
func parseFile(name string, b []byte) ([]Record, []Notice) {
	var recs []Record
	var notices []Notice
	lines := bytes.Split(b, []byte{'\n'})
	complete := len(lines) > 0 && len(lines[len(lines)-1]) == 0
	if complete {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		r, err := parseRecord(l)
		if err != nil {
			last := i == len(lines)-1
			text := "line skipped: " + err.Error()
			if last && !complete {
				text = "last line skipped: cut short (hab-gc stopped while writing it): " + err.Error()
			}
			notices = append(notices, Notice{File: name, Line: i + 1, Last: last, Text: text})
			continue
		}
		recs = append(recs, r)
	}
	return recs, notices
}

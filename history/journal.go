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

const fileName = "history.jsonl"

const (
	defaultMaxSize = 8 << 20
	defaultKeep    = 4
	readLimit      = 256 << 20
)

// DefaultLockTimeout: an append holds the lock for milliseconds; a run
// must not wait on someone else's.
const DefaultLockTimeout = 10 * time.Second

var (
	ErrBusy   = errors.New("journal is locked by another process")
	ErrUnsafe = errors.New("journal is not a regular file with one link")
)

// Journal is the history file in a directory, and its rotated
// predecessors.
type Journal struct {
	Dir string // required
	// FSRoot, when set (ForFSRoot), makes every directory below it to Dir
	// opened or made without following a symlink (safeio.ErrSymlink);
	// without it only Dir's last component is.
	FSRoot      string
	MaxSize     int64
	Keep        int
	LockTimeout time.Duration // negative: try once
}

func (j Journal) keep() int {
	if j.Keep <= 0 {
		return defaultKeep
	}
	return j.Keep
}

// ForFSRoot is the journal under FSROOT/hab/sup/default/hab-gc.
func ForFSRoot(fsRoot string) (Journal, error) {
	if err := pkgstore.RequireFSRoot(fsRoot); err != nil {
		return Journal{}, fmt.Errorf("history: %w", err)
	}
	return Journal{Dir: filepath.Join(fsRoot, "hab", "sup", "default", "hab-gc"), FSRoot: fsRoot}, nil
}

var errNoDir = fmt.Errorf("history: the journal's Dir is empty: %w", pkgstore.ErrNoStore)

func rotated(n int) string {
	if n == 0 {
		return fileName
	}
	return fileName + "." + strconv.Itoa(n)
}

// AppendContext writes recs with one write and fsyncs them, waiting for
// another writer's lock at most LockTimeout and until ctx ends (ErrBusy).
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
	Last bool   `json:"last,omitempty"`
	Text string `json:"text"`
}

func (n Notice) String() string {
	if n.Line == 0 {
		return fmt.Sprintf("%s: %s", n.File, n.Text)
	}
	return fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Text)
}

// Read returns every record, oldest first; err only when the directory
// cannot be read.
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

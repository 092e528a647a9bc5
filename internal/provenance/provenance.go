// Package provenance records which program installed each release of a
// store: while hab-gc watch runs, the kernel names the process that
// renamed (or made) each release directory into place (Watch, Linux), and
// a record of it is appended to a small file among hab-gc's own (Append).
// A scan reads it back (Read) and matches each record to the release
// directory by device and inode, so a record outlives restarts and
// crashes but never describes a release installed again since.
//
// A release with no matching record was installed by an unknown program:
// before hab-gc watched, on a kernel or file system that cannot tell, or
// by a process that ended before its name could be read.
package provenance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

const (
	// Supervisor is the name of the Supervisor's program, which installs
	// the releases of the services it updates in its own process
	// (habitat-sh/habitat components/sup/src/util/pkg.rs install).
	Supervisor = "hab-sup"
	// Unknown is the installer of a release without a record.
	Unknown = "unknown"
	// Dir holds File, under the FS root (hab-gc's own directory, beside
	// the history).
	Dir = "hab/sup/default/hab-gc"
	// File is the records' file: one JSON object a line.
	File = "installed-by.jsonl"

	// compactAt is the size past which Append first rewrites the file
	// with only the records of releases still installed.
	compactAt = 1 << 20
	// readLimit caps Read: beyond it the file is not hab-gc's.
	readLimit = 16 << 20
)

// Record says which program installed a release directory.
type Record struct {
	Ident string    `json:"ident"` // ORIGIN/NAME/VERSION/RELEASE
	By    string    `json:"by"`    // the program's name, or Unknown
	PID   int       `json:"pid,omitempty"`
	Time  time.Time `json:"time"`
	// Dev and Ino identify the release directory the record is about.
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
}

// Read returns the records of fsRoot's file, the last one for each
// release directory (by device and inode). No file is no records.
func Read(fsRoot string) (map[[2]uint64]Record, error) {
	b, err := readFile(fsRoot)
	if err != nil {
		return nil, err
	}
	recs := map[[2]uint64]Record{}
	for line := range bytes.Lines(b) {
		var r Record
		if json.Unmarshal(line, &r) == nil && r.Ident != "" && r.By != "" {
			recs[[2]uint64{r.Dev, r.Ino}] = r // a torn or foreign line is skipped
		}
	}
	return recs, nil
}

func readFile(fsRoot string) ([]byte, error) {
	root, err := safeio.OpenRootBeneath(fsRoot, Dir, false)
	var b []byte
	if err == nil {
		b, err = safeio.ReadFileAt(root, File, readLimit, safeio.NoFollow)
		root.Close()
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(fsRoot, Dir, File), err)
	}
	return b, nil
}

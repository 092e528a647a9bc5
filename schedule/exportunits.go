package schedule

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// PressureExportCron is the cron expression an exported pressure job's
// timer fires at: the daemon looks at the free space every minute, and
// so does the timer.
const PressureExportCron = "* * * * *"

// ExportJobs returns the jobs an export writes units for: s's scheduled
// jobs, then its pressure jobs with the cron PressureExportCron.
func (s *Scheduler) ExportJobs() []Job {
	jobs := s.Jobs()
	for _, p := range s.PressureJobs() {
		p.Cron = PressureExportCron
		jobs = append(jobs, p)
	}
	return jobs
}

// WriteUnits writes each job's units (SystemdUnits) into the directory
// out, made when missing, each through a temporary file renamed into
// place, so that a symlink or any other file planted at a unit's name is
// replaced, never followed or written through. It then removes the units
// an earlier export wrote (regular files whose names start with hab-gc-,
// end in .timer or .service, and whose content starts with UnitMarker)
// that belong to no job now; a file without the marker is never touched.
// It returns the files written (out joined with each unit's name), also
// those written before an error.
func WriteUnits(out string, jobs []Job, inv Invocation, loc *time.Location) ([]string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	root, err := safeio.OpenRoot(out)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	keep := map[string]bool{}
	var written []string
	for _, j := range jobs {
		units, err := SystemdUnits(j, inv, loc)
		if err != nil {
			return written, err
		}
		for _, u := range units {
			if err := writeUnit(root, u); err != nil {
				return written, err
			}
			keep[u.Name] = true
			written = append(written, filepath.Join(out, u.Name))
		}
	}
	entries, err := safeio.ReadDir(out)
	if err != nil {
		return written, err
	}
	for _, e := range entries {
		n := e.Name()
		if keep[n] || !e.Type().IsRegular() || !strings.HasPrefix(n, "hab-gc-") ||
			!(strings.HasSuffix(n, ".timer") || strings.HasSuffix(n, ".service")) {
			continue
		}
		if IsExportedUnit(root, n) {
			if err := safeio.RemoveAt(root, n); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// writeUnit writes u into the directory root through a new temporary
// file (created exclusively: whatever someone planted at any name is never
// opened) and renames it over u.Name (which replaces what is there, never
// writes through it).
func writeUnit(root *os.Root, u Unit) error {
	f, err := os.CreateTemp(root.Name(), ".hab-gc-export-*")
	if err != nil {
		return err
	}
	tmp := filepath.Base(f.Name())
	_, err = f.WriteString(u.Content)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, u.Name)
	}
	if err != nil {
		safeio.RemoveAt(root, tmp)
	}
	return err
}

// IsExportedUnit reports whether the file name in the directory root is a
// unit an export wrote: a regular file (never a symlink's target, nor a
// FIFO waited on) whose content starts with UnitMarker.
func IsExportedUnit(root *os.Root, name string) bool {
	f, err := safeio.OpenAt(root, name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	buf := make([]byte, len(UnitMarker))
	_, err = io.ReadFull(f, buf)
	return err == nil && string(buf) == UnitMarker
}

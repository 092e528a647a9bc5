package pkgstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// svcDir holds each service's files (svcDir/NAME), under the FS root.
const svcDir = "hab/svc"

// maxPIDFile caps the read of a PID file: a decimal PID is at most 10
// bytes (Habitat writes it with no newline).
const maxPIDFile = 64

// readPIDFile reads hab/svc/NAME/PID, which the Supervisor writes once it
// spawned the run hook and removes when it stops (supervisor.rs
// create_pidfile, cleanup_pidfile), never following a symlink.
func (inv *Inventory) readPIDFile(svc *Service, probs *problems) {
	rel := svcDir + "/" + svc.Name
	root, err := safeio.OpenRootBeneath(inv.FSRoot, rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return // never started, or its directory not made yet
	}
	var pid int
	var written time.Time
	if err == nil {
		defer root.Close()
		f, fi, oerr := safeio.OpenRegularAt(root, "PID", safeio.NoFollow)
		if errors.Is(oerr, fs.ErrNotExist) {
			return // not running
		}
		err = oerr
		if err == nil {
			written = fi.ModTime()
			pid, err = parsePID(f)
			f.Close()
		}
	}
	svc.PIDFile = rel + "/PID"
	if err == nil {
		err = alive(pid)
	}
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, safeio.ErrSymlink) {
		err = errors.New("it or a directory above it is a symlink, not followed")
	}
	if err != nil {
		svc.PIDProblem = errMsg(err)
		probs.add(Problem{Path: svc.PIDFile, Kind: ProblemPIDFile,
			Message: fmt.Sprintf("service %s's PID file tells nothing of which release it runs (%s): every release its spec ident %s allows is kept", svc.Name, svc.PIDProblem, svc.Ident)})
		return
	}
	svc.PID = pid
	svc.Runs = inv.startedOn(svc.Ident, written)
}

func parsePID(f io.Reader) (int, error) {
	b, err := io.ReadAll(io.LimitReader(f, maxPIDFile+1))
	if err != nil {
		return 0, err
	}
	if len(b) > maxPIDFile {
		return 0, fmt.Errorf("more than %d bytes, not a PID", maxPIDFile)
	}
	s := strings.TrimSpace(string(b))
	pid, err := strconv.Atoi(s)
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("holds %s, not a process id", quotePrefix(s))
	}
	return pid, nil
}

// startedOn are the releases the Supervisor may have picked for ident
// among those installed by written.
func (inv *Inventory) startedOn(ident Ident, written time.Time) []Ident {
	var ids []Ident
	for _, r := range inv.Satisfying(ident) {
		if !r.InstalledAt().After(written) {
			ids = append(ids, r.Ident)
		}
	}
	var out []Ident
	for _, i := range supervisorPicks(ids) {
		out = append(out, ids[i])
	}
	return out
}

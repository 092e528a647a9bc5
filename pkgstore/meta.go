package pkgstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// depIdents returns the valid idents the lines of DEPS and TDEPS under r
// name, each once (path is r's, relative to the FS root; a file over the
// read limit is read line by line), and whether what they name is unknown
// (as Release.DepsUnknown). What cannot be read is recorded as a blocking
// problem.
func (sc *scanner) depIdents(r *os.Root, path string) (ids []Ident, unknown bool) {
	var named [2]int
	var failed [2]bool
	seen := map[Ident]bool{}
	for i, file := range [2]string{"DEPS", "TDEPS"} {
		l, ok := sc.readDeps(r, path+"/"+file, file, "")
		if !ok {
			failed[i] = true
			continue
		}
		for _, line := range l.lines {
			if id, err := ParseFullIdent(string(line)); err == nil {
				named[i]++
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
	}
	return ids, (failed[0] && named[1] == 0) || (failed[1] && named[0] == 0)
}

// readMeta reads a metadata file as Habitat does (whole file, trimmed),
// up to safeio.Limit bytes: a larger file is an error wrapping
// safeio.ErrTooLarge, found without reading it. exists is false when the
// file is absent. Only regular files are read, opened without blocking, so
// a FIFO planted in a release cannot hang the scan.
func readMeta(r *os.Root, name string) (body []byte, exists bool, err error) {
	b, err := safeio.ReadFileAt(r, name, safeio.Limit, safeio.FollowLinks)
	if errors.Is(err, fs.ErrNotExist) {
		// A symlink to nothing is not an absent file: what it would
		// say is unknown.
		if fi, lerr := r.Lstat(name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := r.Readlink(name)
			return nil, true, fmt.Errorf("a symlink to %s, which does not exist", quoteName(target))
		}
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	return bytes.TrimSpace(b), true, nil
}

// depsLines are what could be read of a DEPS or TDEPS file: its lines
// (nil for an empty or absent file), and whether it was over the read
// limit and read line by line (lines are then its distinct valid idents).
type depsLines struct {
	lines    [][]byte
	streamed bool
}

// readDeps reads a DEPS or TDEPS file of a release (path is relative to
// the FS root, fq the release's ident or "" for an Opaque): whole when
// within the read limit, line by line (streamDeps) beyond it. ok is false,
// with a blocking problem recorded, when what it names cannot be read at
// all: not a regular file, unreadable, or beyond what is streamed.
func (sc *scanner) readDeps(rroot *os.Root, path, file, fq string) (l depsLines, ok bool) {
	body, _, err := readMeta(rroot, file)
	if tooLarge(err) != "" {
		st, serr := streamDeps(rroot, file, sc.opts.streamLimit, sc.opts.streamIdentBytes)
		if serr == nil {
			sc.problems.add(st.problem(path, fq))
			return depsLines{lines: st.lines, streamed: true}, true
		}
		err = serr
	}
	if err != nil {
		msg := fmt.Sprintf("unreadable, so what this release needs is unknown: %s", errMsg(err))
		if errors.Is(err, errStreamCap) {
			msg = fmt.Sprintf("%s, so what this release needs is unknown", errMsg(err))
		}
		sc.problems.add(Problem{Path: path, Kind: ProblemDeps, Release: fq, Blocking: true, Message: msg})
		return depsLines{}, false
	}
	if len(body) > 0 {
		l.lines = bytes.Split(body, []byte{'\n'})
		for j, line := range l.lines {
			l.lines[j] = bytes.TrimSuffix(line, []byte{'\r'})
		}
	}
	return l, true
}

// readTarget reads TARGET as Habitat's listing does and reports whether
// Habitat lists the release for the scan's target. Where hab-gc cannot
// tell, unsure says why. A release Habitat does not list is recorded as a
// non-blocking problem saying why.
func (sc *scanner) readTarget(rroot *os.Root, path string) (listed bool, unsure string) {
	skip := func(kind ProblemKind, msg string) (bool, string) {
		sc.problems.add(Problem{Path: path + "/TARGET", Kind: kind, Message: msg})
		return false, ""
	}
	fi, err := rroot.Lstat("TARGET")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return skip(ProblemTarget, "missing; Habitat does not list this release, nor does hab-gc")
	case err != nil:
		return false, fmt.Sprintf("cannot be examined (%s), so whether Habitat lists this release is unknown", errMsg(err))
	case fi.Mode()&fs.ModeSymlink != 0:
		return false, "a symlink: Habitat follows it and may list this release, but hab-gc never follows a symlink to read TARGET, so whether it is installed is unknown"
	case fi.IsDir():
		return skip(ProblemTarget, "a directory, which Habitat cannot read as a target; Habitat does not list this release, nor does hab-gc")
	case fi.Mode()&fs.ModeNamedPipe != 0:
		return skip(ProblemTarget, "a FIFO: Habitat's listing would wait forever opening it and never list this release; nor does hab-gc")
	case fi.Mode()&fs.ModeSocket != 0:
		return skip(ProblemTarget, "a socket, which Habitat cannot open; Habitat does not list this release, nor does hab-gc")
	case !fi.Mode().IsRegular():
		return false, fmt.Sprintf("a %s, not a regular file, so whether Habitat lists this release is unknown", fileKind(fi.Mode()))
	}
	target, _, err := readMeta(rroot, "TARGET")
	switch {
	case tooLarge(err) != "":
		return false, tooLarge(err) + ", so whether Habitat lists this release is unknown"
	case err != nil:
		return false, fmt.Sprintf("unreadable by hab-gc (%s); Habitat, run by another user, may read it and list this release, so whether it is installed is unknown", errMsg(err))
	case !validTarget(string(target)):
		return skip(ProblemTarget, fmt.Sprintf("%s is not a package target; Habitat does not list this release, nor does hab-gc", quotePrefix(string(target))))
	case string(target) != sc.opts.Target:
		sc.problems.addForeign(string(target))
		return skip(ProblemForeignTarget, fmt.Sprintf("release is for %s, not %s; not installed for this target, left alone", target, sc.opts.Target))
	}
	return true, ""
}

// checkIdent reads IDENT as the release's (path is its directory,
// relative to the FS root, fq its ident) and records a problem when it is
// over the read limit (blocking), unreadable, missing or names another
// release.
func (sc *scanner) checkIdent(rroot *os.Root, path, fq string) {
	identBody, exists, err := readMeta(rroot, "IDENT")
	switch {
	case tooLarge(err) != "":
		sc.problems.add(Problem{Path: path + "/IDENT", Kind: ProblemIdent, Release: fq, Blocking: true,
			Message: tooLarge(err)})
	case err != nil:
		sc.problems.add(Problem{Path: path + "/IDENT", Kind: ProblemIdent, Release: fq,
			Message: fmt.Sprintf("unreadable: %s", errMsg(err))})
	case !exists:
		sc.problems.add(Problem{Path: path + "/IDENT", Kind: ProblemIdent, Release: fq, Message: "missing"})
	case string(identBody) != fq:
		sc.problems.add(Problem{Path: path + "/IDENT", Kind: ProblemIdent, Release: fq,
			Message: fmt.Sprintf("says %s but the path says %q", quotePrefix(string(identBody)), fq)})
	}
}

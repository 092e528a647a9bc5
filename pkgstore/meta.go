package pkgstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// depIdents returns the valid idents DEPS and TDEPS under r name, each
// once, and whether what they need is unknown (as Release.DepsUnknown).
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

// readMeta reads a metadata file as Habitat does (whole, trimmed): only a
// regular file of at most safeio.Limit bytes, opened without blocking.
func readMeta(r *os.Root, name string) (body []byte, exists bool, err error) {
	b, err := safeio.ReadFileAt(r, name, safeio.Limit, safeio.FollowLinks)
	if errors.Is(err, fs.ErrNotExist) {
		// A symlink to nothing is not an absent file.
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

// depsLines are a DEPS or TDEPS file's lines, its distinct valid idents
// when it was streamed.
type depsLines struct {
	lines    [][]byte
	streamed bool
}

// readDeps reads a DEPS or TDEPS file, line by line (streamDeps) beyond
// the read limit. ok is false, with a blocking problem, when what it
// names cannot be read at all.
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

// readTarget reports whether Habitat lists the release for the scan's
// target; unsure says why hab-gc cannot tell.
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

// checkIdent records a problem when IDENT is not fq.
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

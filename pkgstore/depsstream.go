package pkgstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// A DEPS or TDEPS file over the read limit is read line by line up to
// depsStreamLimit bytes, keeping at most depsStreamIdentBytes of distinct
// idents (Habitat reads it whole); beyond, what it names is unknown.
const (
	depsStreamLimit      = 64 << 20
	depsStreamIdentBytes = 16 << 20
)

var errStreamCap = errors.New("not read")

type streamed struct {
	lines    [][]byte // the distinct lines that are valid idents, in file order
	nbad     int      // how many lines are not valid idents
	firstBad int      // the first of them (from 1)
	size     int64    // bytes read
}

// streamDeps reads a DEPS or TDEPS file line by line (0 limits: the
// defaults); an error means what it names is unknown.
func streamDeps(r *os.Root, name string, limit int64, identBytes int) (*streamed, error) {
	if limit <= 0 {
		limit = depsStreamLimit
	}
	if identBytes <= 0 {
		identBytes = depsStreamIdentBytes
	}
	f, fi, err := safeio.OpenRegularAt(r, name, safeio.FollowLinks)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, fmt.Errorf("%d bytes, more than the %d bytes hab-gc reads line by line: %w", fi.Size(), limit, errStreamCap)
	}
	st := &streamed{}
	seen := map[string]bool{}
	kept := 0
	br := bufio.NewReaderSize(io.LimitReader(f, limit+1), 64<<10)
	n := 0
	long := false // within a line longer than the buffer
	for {
		chunk, err := br.ReadSlice('\n')
		st.size += int64(len(chunk))
		if st.size > limit {
			return nil, fmt.Errorf("more than the %d bytes hab-gc reads line by line (it grew while read): %w", limit, errStreamCap)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			long = true
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(chunk) > 0 || long {
			n++
			line := bytes.TrimSuffix(bytes.TrimSuffix(chunk, []byte{'\n'}), []byte{'\r'})
			switch {
			case long:
				st.badLine(n)
				long = false
			case len(bytes.TrimSpace(line)) == 0 || seen[string(line)]:
			default:
				if _, perr := ParseFullIdent(string(line)); perr != nil {
					st.badLine(n)
					break
				}
				if kept += len(line); kept > identBytes {
					return nil, fmt.Errorf("names more than %d bytes of distinct releases, more than hab-gc keeps: %w", identBytes, errStreamCap)
				}
				seen[string(line)] = true
				st.lines = append(st.lines, bytes.Clone(line))
			}
		}
		if err != nil { // io.EOF
			return st, nil
		}
	}
}

func (st *streamed) badLine(n int) {
	if st.nbad == 0 {
		st.firstBad = n
	}
	st.nbad++
}

func (st *streamed) problem(path, fq string) Problem {
	msg := fmt.Sprintf("%d bytes, more than the %d bytes hab-gc reads of a metadata file at once; read line by line, it names %d distinct releases, each kept", st.size, safeio.Limit, len(st.lines))
	if st.nbad > 0 {
		msg += fmt.Sprintf(", and %d lines that are not valid package idents (the first: line %d)", st.nbad, st.firstBad)
	}
	return Problem{Path: path, Kind: ProblemDeps, Release: fq, Blocking: true, Message: msg}
}

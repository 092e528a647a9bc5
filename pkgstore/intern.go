package pkgstore

import (
	"fmt"
	"sync"
)

// interner gives every distinct ident string one Ref, parsed once. idents
// grows a chunk at a time, never copied (append made 42 MB of garbage at
// 130,000 releases).
type interner struct {
	mu     sync.Mutex
	index  map[string]Ref
	idents [][]Ident
	n      int // idents held
	chunk  int
	bad    map[string]error
}

const scanChunk = 4096

func newInterner() *interner {
	return &interner{index: make(map[string]Ref, 1024), bad: map[string]error{}, chunk: scanChunk}
}

func (in *interner) numRefs() int { return in.n }

func (in *interner) ident(r Ref) Ident { return in.idents[int(r)/in.chunk][int(r)%in.chunk] }

func (in *interner) refLocked(key string, id Ident) Ref {
	r := Ref(in.n)
	if in.n%in.chunk == 0 {
		in.idents = append(in.idents, make([]Ident, 0, in.chunk))
	}
	last := &in.idents[len(in.idents)-1]
	*last = append(*last, id)
	in.n++
	in.index[key] = r
	return r
}

// refsLocked interns lines; badOut gets each bad line's number (from 1).
func (in *interner) refsLocked(lines [][]byte, out []Ref, badOut func(n int, line string, err error)) []Ref {
	for i, l := range lines {
		if r, ok := in.index[string(l)]; ok {
			out = append(out, r)
			continue
		}
		if err, ok := in.bad[string(l)]; ok {
			badOut(i+1, string(l), err)
			continue
		}
		line := string(l)
		id, err := ParseFullIdent(line)
		if err != nil {
			in.bad[line] = err
			badOut(i+1, line, err)
			continue
		}
		out = append(out, in.refLocked(line, id))
	}
	return out
}

func (in *interner) identLocked(id Ident) Ref {
	key := id.String()
	if r, ok := in.index[key]; ok {
		return r
	}
	return in.refLocked(key, id)
}

// intern gives rel its Ref and those of its DEPS and TDEPS lines.
func (sc *scanner) intern(rel *Release, lines [2][][]byte, path, fq string) (bad []Problem) {
	sc.in.mu.Lock()
	defer sc.in.mu.Unlock()
	rel.Ref = sc.in.identLocked(rel.Ident)
	for i, file := range [2]string{"DEPS", "TDEPS"} {
		if lines[i] == nil {
			continue
		}
		refs := sc.in.refsLocked(lines[i], make([]Ref, 0, len(lines[i])), func(n int, line string, err error) {
			msg := fmt.Sprintf("line %d: %v", n, err)
			if len(line) > 80 { // the error would quote it whole
				msg = fmt.Sprintf("line %d: %s: not a valid package ident", n, quotePrefix(line))
			}
			bad = append(bad, Problem{Path: path + "/" + file, Kind: ProblemDeps, Release: fq, Blocking: true, Message: msg})
		})
		if i == 0 {
			rel.Deps = refs
		} else {
			rel.TDeps = refs
		}
	}
	return bad
}

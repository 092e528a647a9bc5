package pkgstore

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

type problems struct {
	mu   sync.Mutex
	list []Problem
	// foreign counts the releases of other targets, by target.
	foreign map[string]int
}

func (p *problems) addForeign(target string) {
	p.mu.Lock()
	if p.foreign == nil {
		p.foreign = map[string]int{}
	}
	p.foreign[target]++
	p.mu.Unlock()
}

func (p *problems) add(pr Problem) {
	p.mu.Lock()
	p.list = append(p.list, pr)
	p.mu.Unlock()
}

func sortProblems(ps []Problem) []Problem {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return ps
}

// storePath gives a problem path relative to the FS root.
func storePath(parts ...string) string {
	var b strings.Builder
	b.WriteString(StoreDir)
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(quoteName(p))
	}
	return b.String()
}

// quoteName shows a name that is not valid UTF-8, or holds a control
// character (a newline, a tab: it would break or fake the line a problem
// is shown on), with Go escapes.
func quoteName(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

func article(w string) string {
	if strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}

func fileKind(m fs.FileMode) string { return safeio.Kind(m) }

func (sc *scanner) unreadable(err error, parts ...string) {
	sc.problems.add(Problem{Path: storePath(parts...), Kind: ProblemUnreadable, Blocking: true,
		Message: fmt.Sprintf("cannot read directory, so the releases in it are unknown: %v", errMsg(err))})
}

// errMsg drops the path an *fs.PathError repeats; the Problem has it.
func errMsg(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// tooLarge describes a file over the read limit, or returns "" for any
// other error.
func tooLarge(err error) string {
	var tl *safeio.TooLargeError
	if !errors.As(err, &tl) {
		return ""
	}
	return fmt.Sprintf("%d bytes, more than the %d bytes hab-gc reads of a metadata or spec file (not read)", tl.Size, tl.Limit)
}

// quotePrefix quotes s for a message, at most its first 80 bytes.
func quotePrefix(s string) string {
	const max = 80
	if len(s) <= max {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:max]), len(s))
}

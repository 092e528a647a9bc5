package schedule

import (
	"fmt"
	"strings"
)

// DefinitionError is a rejected definition file: where (1-based line and
// column; 0 when unknown), which field, and why.
type DefinitionError struct {
	File         string
	Line, Column int
	Field        string
	Msg          string
	// MissingStore is the store (FS_ROOT/hab/pkgs) whose absence
	// rejected the file: it loads once the store exists (a late mount).
	MissingStore string
}

func (e *DefinitionError) Error() string {
	where := e.File
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Column)
	}
	if e.Field != "" {
		return fmt.Sprintf("%v: %s: field %s: %s", ErrDefinition, where, e.Field, e.Msg)
	}
	return fmt.Sprintf("%v: %s: %s", ErrDefinition, where, e.Msg)
}

func (e *DefinitionError) Unwrap() error { return ErrDefinition }

// keyPos finds where a dotted field ("prune.keep_latest", "fs_root") is
// written in a TOML file: its key's line and column, else its table's
// header, else 1:1. Definitions are flat (one level of tables), which is
// all this needs to handle.
func keyPos(data []byte, field string) (line, col int) {
	table, key, ok := strings.Cut(field, ".")
	if !ok {
		table, key = "", field
	}
	cur := ""
	hdrLine, hdrCol := 0, 0
	for i, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		indent := len(l) - len(strings.TrimLeft(l, " \t")) + 1
		if strings.HasPrefix(t, "[") {
			cur = strings.TrimSpace(strings.Trim(t, "[] \t"))
			if cur == table && hdrLine == 0 {
				hdrLine, hdrCol = i+1, indent
			}
			continue
		}
		if cur != table {
			continue
		}
		if k, _, ok := strings.Cut(t, "="); ok && strings.Trim(strings.TrimSpace(k), `"'`) == key {
			return i + 1, indent
		}
	}
	if hdrLine > 0 {
		return hdrLine, hdrCol
	}
	return 1, 1
}

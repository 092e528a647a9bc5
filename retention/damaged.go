package retention

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrDamaged: the store has blocking problems and AllowDamaged is unset.
var ErrDamaged = errors.New("store is damaged: refusing to remove anything")

// DamagedError lists the blocking problems behind a refusal.
type DamagedError struct {
	Problems []pkgstore.Problem
}

func (e *DamagedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v (%d blocking problem(s); fix them or allow damaged stores explicitly):", ErrDamaged, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

func (e *DamagedError) Unwrap() error { return ErrDamaged }

// depsUnknown says why every release is kept while one's needs are
// wholly unknown; "" when none is.
func depsUnknown(inv *pkgstore.Inventory) string {
	what := ""
	for _, r := range inv.Releases {
		if r.DepsUnknown {
			what = r.Ident.String()
			break
		}
	}
	if what == "" {
		for _, o := range inv.Opaque {
			if o.DepsUnknown {
				what = o.Path
				break
			}
		}
	}
	if what == "" {
		return ""
	}
	return fmt.Sprintf("what %s needs cannot be read (its DEPS or TDEPS is not a file hab-gc can read, and the other names nothing; see the problems), so it may need any release: none is removed while it is installed", what)
}

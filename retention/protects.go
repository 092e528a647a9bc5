package retention

import (
	"fmt"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// Protects returns why the plan's policy keeps whatever is of id, whether
// or not id is installed: each exclude (pin) that matches it
// (CodeExcluded, naming the pin and its source), and, when the plan is
// limited (Only, ServicesOnly), CodeOutsideOnly for an id outside its
// scope. nil when neither holds. The artifact cache asks it of each
// archive, so that a run's --only and --exclude reach the cache as they
// reach the store.
func (p *Plan) Protects(id pkgstore.Ident) []Reason {
	var rs []Reason
	for _, ex := range p.Policy.Excludes {
		if ok, _ := ex.match(id); ok {
			rs = append(rs, Reason{Code: CodeExcluded, Text: "excluded by " + ex.describe()})
		}
	}
	if p.limited() && !p.inScope(id) {
		rs = append(rs, Reason{Code: CodeOutsideOnly, Text: fmt.Sprintf("not among the packages this run is limited to (%s)", p.scopeNames())})
	}
	return rs
}

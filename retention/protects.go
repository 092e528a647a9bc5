package retention

import (
	"fmt"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// Protects returns why the policy keeps anything of id, installed or not
// (the pins, and being outside a limited plan's scope): the artifact cache
// asks it of each archive.
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

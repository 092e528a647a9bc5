package binlink

// SetBeforeChange sets the hook Apply runs between checking a link and
// changing it.
func SetBeforeChange(p *Plan, f func(link string)) { p.beforeChange = f }

// Changes counts the steps that change a link.
func (p *Plan) Changes() int {
	n := 0
	for _, s := range p.Steps {
		if s.Action != ActionLeave {
			n++
		}
	}
	return n
}

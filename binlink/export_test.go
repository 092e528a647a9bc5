package binlink

// SetBeforeChange sets the hook Apply runs between checking a link and
// changing it.
func SetBeforeChange(p *Plan, f func(link string)) { p.beforeChange = f }

package lease

const (
	RelDir = relDir
	Suffix = suffix
)

var Parse = parse

// Path is the file of l.
func (l *Lease) Path() string { return l.path }

package storetest

import "time"

// OldTime is when the releases Old adds were modified: 2020-01-01 UTC,
// long before any test runs, so that no minimum age or install window
// keeps them.
func OldTime() time.Time { return time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC) }

// Old adds releases without deps, each modified at OldTime.
func (b *Builder) Old(idents ...string) *Builder {
	b.t.Helper()
	for _, id := range idents {
		b.Add(Release{Ident: id, ModTime: OldTime()})
	}
	return b
}

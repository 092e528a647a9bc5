package pkgstore

import "time"

// WithSlowPath returns o set to read every release through os.Root, the
// way the scan reads a release its fast path finds anything unusual in:
// tests check that both paths find the same.
func WithSlowPath(o Options) Options {
	o.slowPath = true
	return o
}

// WithStreamLimits returns o with the caps of a DEPS or TDEPS file read
// line by line (DepsStreamLimit, DepsStreamIdentBytes) replaced.
func WithStreamLimits(o Options, limit int64, identBytes int) Options {
	o.streamLimit, o.streamIdentBytes = limit, identBytes
	return o
}

// ForgeArchiveReads makes every archive read an inventory keeps for the
// next Rescan say it holds ident: a Rescan that takes one again (the same
// file) reports the forged ident, one that reads it reports the real one.
func ForgeArchiveReads(inv *Inventory, ident string) int {
	for k, r := range inv.archives {
		a := *r.a
		a.Ident = ident
		inv.archives[k] = archiveRead{a: &a, settled: r.settled}
	}
	return len(inv.archives)
}

// WithArchiveSettle returns o with the time an archive must have last
// changed before a read for a Rescan to take the read again replaced.
func WithArchiveSettle(o Options, d time.Duration) Options {
	o.archiveSettle = d
	return o
}

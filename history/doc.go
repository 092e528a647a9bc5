// Package history keeps the journal of what hab-gc removed: which release,
// when, by which run, under which policy, and why.
//
// Every real run appends one record per release (or leftover directory,
// or binlink) it removed or failed to, and one for the run, to
// FS_ROOT/hab/sup/default/hab-gc/history.jsonl (ForFSRoot).
//
// An append is one write on an O_APPEND descriptor, fsynced, under the
// file's flock. No directory below the FS root and not the file is ever a
// symlink followed; the descriptor must be a regular file with one link
// (else ErrUnsafe, nothing written). A line a crash cut is ended before
// the next records. Past MaxSize the file rotates (history.jsonl.1 ...
// Keep). Read skips a line that is not a record with a Notice: a damaged
// line must not hide the rest.
package history

// Package history keeps the journal of what hab-gc removed: which release,
// when, by which run, under which policy, and why.
//
// Every real run (hab-gc run without --dry-run, and every scheduled prune)
// appends one record per release it removed or failed to remove, and one
// record for the run itself, to a JSON-lines file under
// FS_ROOT/hab/sup/default/hab-gc (Dir). The records are what answers "what
// removed my package, when, and why" long after the run's output is gone.
//
// # Writing
//
// Journal.Append writes a run's records with one write(2) on a descriptor
// opened with O_APPEND, then fsyncs it (and the directory when it created
// the file). The file is opened without following a symlink (O_NOFOLLOW,
// relative to the directory's descriptor, itself opened with O_NOFOLLOW)
// and checked on the open descriptor: a regular file with one link.
// Anything else at that name is refused (ErrUnsafe) and never written.
// Writers serialize on an flock of the journal file. A journal that a
// crash cut mid-line gets a newline before the next records, so the torn
// line stays one bad line and never corrupts the next record.
//
// When an append would take the file past MaxSize, the file is rotated
// first: history.jsonl becomes history.jsonl.1, .1 becomes .2, and so on;
// the oldest beyond Keep is dropped.
//
// # Reading
//
// Journal.Read returns the records of every file, oldest first. A line that
// does not parse as a record (a torn last line after a crash, a corrupt
// line) is skipped and reported as a Notice, never an error: the history
// is a record, and a damaged line must not hide the rest. ParseRecord is
// the parser of one line.
package history

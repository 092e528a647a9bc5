// Package safeio opens and reads files that someone else may have planted
// or swapped: a configuration file, a schedule definition, a spec, a
// release's metadata, a state file, a lock file.
//
// Every open is non-blocking (O_NONBLOCK), so a FIFO or a device at the
// name cannot hang the open; every read first checks on the open
// descriptor (fstat) that it is a regular file, so a FIFO cannot hang the
// read either; and every read is capped, so a huge or sparse file (whose
// reported size may be anything) cannot exhaust memory: the buffer grows
// with what is actually read, never with the size fstat reports.
//
// Where a symlink at the last component is not meant to be followed, the
// open uses O_NOFOLLOW, also through an *os.Root (whose own OpenFile
// follows symlinks that stay inside the root): OpenAt opens the parent
// directory through the root and the last component with openat(2) and
// O_NOFOLLOW itself.
//
// DirFD reads a tree fast under the same rules: a directory descriptor
// whose names are single components opened with O_NOFOLLOW, listed with
// getdents and read without an *os.File (so without the runtime poller's
// system calls).
//
// Errors name the file (*fs.PathError) and wrap ErrNotRegular or
// ErrTooLarge (a *TooLargeError carries the size) so that callers can
// branch with errors.Is.
package safeio

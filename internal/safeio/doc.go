// Package safeio opens and reads files that someone else may have planted
// or swapped: every open is non-blocking (a FIFO cannot hang it), every
// read checks the open descriptor is a regular file and is capped (the
// buffer grows with what is read, not with the size fstat reports).
// OpenAt refuses a symlink at the last component even through an
// *os.Root; OpenDirBeneath never follows one at any; DirFD reads a tree
// by descriptor (Linux). Errors name the file and wrap ErrNotRegular,
// ErrTooLarge or ErrSymlink.
package safeio

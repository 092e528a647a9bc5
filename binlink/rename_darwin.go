package binlink

import "golang.org/x/sys/unix"

// exchange swaps a and b in dirfd atomically.
func exchange(dirfd int, a, b string) error {
	return unix.RenameatxNp(dirfd, a, dirfd, b, unix.RENAME_SWAP)
}

// renameNoReplace renames from to to in dirfd, failing with EEXIST when
// to exists.
func renameNoReplace(dirfd int, from, to string) error {
	return unix.RenameatxNp(dirfd, from, dirfd, to, unix.RENAME_EXCL)
}

// atomicExchange: exchange and renameNoReplace work here.
const atomicExchange = true

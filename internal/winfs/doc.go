// Package winfs is the Windows half of internal/safeio and internal/onefs:
// NtCreateFile with RootDirectory and FILE_OPEN_REPARSE_POINT is openat
// with O_NOFOLLOW, a handle's delete disposition unlinkat. Deletion is the
// plain kind, not POSIX semantics (Wine 8.0 and some file systems refuse
// those): a file held with FILE_SHARE_DELETE lingers until closed, one
// held without it (a running program) cannot be deleted and stays.
// Elsewhere the package is empty.
package winfs

// Package winfs opens and deletes files on Windows relative to an open
// directory handle, never following a reparse point (a symlink, a
// junction, a volume mount point): NtCreateFile with RootDirectory and
// FILE_OPEN_REPARSE_POINT is Windows' openat with O_NOFOLLOW, and a
// handle's delete disposition its unlinkat. It is the Windows half of
// internal/safeio and internal/onefs; elsewhere the package is empty.
//
// Deletion is the plain kind (FileDispositionInfo, not the POSIX
// semantics os.RemoveAll asks for, which Wine 8.0 and some file systems
// refuse): a file another process holds open with FILE_SHARE_DELETE
// lingers, delete-pending, until that process closes it, and one held
// without FILE_SHARE_DELETE (a running program, a loaded DLL) cannot be
// opened for deletion at all (ERROR_SHARING_VIOLATION), so it stays.
package winfs

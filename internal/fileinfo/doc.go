// Package fileinfo reads what fs.FileInfo holds beyond its methods on this
// platform: a file's device and inode (to tell the same file from a
// replacement), and the bytes it occupies on disk.
package fileinfo

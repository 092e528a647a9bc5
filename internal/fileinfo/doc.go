// Package fileinfo reads what fs.FileInfo holds beyond its methods: device
// and inode, change time, bytes on disk.
package fileinfo

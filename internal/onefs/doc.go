// Package onefs measures and removes directory trees the way a program that
// deletes data on a live machine must: on one file system, without
// following a symlink, in time linear in the size of the tree.
//
// Every step is relative to an open directory descriptor (openat with
// O_NOFOLLOW, fstatat, unlinkat): no path is resolved twice, and a
// directory swapped for a symlink mid-walk is never entered. Each entry's
// device and mount ID (statx, Linux 5.8+: a bind mount keeps the device)
// is compared with the top's before it is entered or deleted; RemoveAll
// refuses a tree holding a mount point (*MountError) before deleting
// anything, and checks again while it deletes. At most a few dozen
// descriptors are open; deeper, an ancestor is reopened through ".." and
// checked to be the same directory.
package onefs

// Package onefs measures and removes directory trees the way a program that
// deletes data on a live machine must: on one file system, without
// following a symlink, in time linear in the size of the tree.
//
// Every step is relative to an open directory descriptor (openat with
// O_NOFOLLOW|O_DIRECTORY, statx or fstatat with AT_SYMLINK_NOFOLLOW,
// unlinkat), so no path is ever resolved twice: a tree 3,000 directories
// deep costs 3,000 opens, not 4.5 million path steps, and a directory
// swapped for a symlink mid-walk is never entered.
//
// The tree stays on its top directory's mount. Each entry's device and
// mount ID (statx STATX_MNT_ID, Linux 5.8+; the device alone before) is
// compared with the top's before anything is entered or deleted: a bind
// mount of the same file system keeps the device number, and only the
// mount ID tells it apart. Walk lists the mount points it meets without
// entering them; RemoveAll refuses (a *MountError) before deleting
// anything when the tree holds one, and checks again before entering each
// directory while it deletes.
//
// Descriptors are bounded: at most a few dozen are open at any depth.
// Deeper, an ancestor's descriptor is closed and reopened on the way back
// up through "..", checked to be the same directory (device and inode).
package onefs

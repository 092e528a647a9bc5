package retention_test

import "golang.org/x/sys/unix"

// mountTmpfs mounts a 1 MiB tmpfs at dir.
func mountTmpfs(dir string) error { return unix.Mount("hab-gc-test", dir, "tmpfs", 0, "size=1m") }

// bindMount bind-mounts src at dir.
func bindMount(src, dir string) error { return unix.Mount(src, dir, "", unix.MS_BIND, "") }

// unmount detaches the mount at dir.
func unmount(dir string) { unix.Unmount(dir, unix.MNT_DETACH) }

// sameDevice reports whether a and b have the same st_dev.
func sameDevice(a, b string) bool {
	var sa, sb unix.Stat_t
	unix.Stat(a, &sa)
	unix.Stat(b, &sb)
	return sa.Dev == sb.Dev
}

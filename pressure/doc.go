// Package pressure decides how much of a retention plan to carry out when
// the disk needs space: below a minimum of free space (min-free) it picks
// the plan's removals, in a stated order, until a target (max-free) would
// be free, and keeps the rest of them for now; at or above min-free it
// keeps them all. It never removes anything the plan keeps: pressure
// decides how much of the plan runs, never what may go.
//
// The order is: the most superseded first (the release furthest from the
// newest of its package), then the oldest installed, then by ident. A
// release that other removals need is taken after them (its dependents
// among the removals are taken with it), so that no kept release ever
// needs a removed one.
//
// Sizes are what the file system allocates (st_blocks*512, hard links
// once), as pkgstore measures them; free space is what statfs reports to
// an unprivileged writer (f_bavail*f_bsize). The free-space reading is
// passed in (FreeFunc), so selection is a pure function of its inputs.
//
// The limits come from settings as text: ParseLimits reads min-free and
// max-free as a user gives them (max-free defaults to min-free), naming
// the setting that is wrong (SettingError); Limits.Check refuses what no
// file system makes right (max-free below min-free in bytes), before the
// file system is known; Limits.Resolve turns percentages into bytes on
// the file system and refuses the rest (ErrBadLimits).
package pressure

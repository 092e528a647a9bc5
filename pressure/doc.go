// Package pressure decides how much of a retention plan to carry out when
// the disk needs space: below min-free it picks the plan's removals until
// max-free would be free and keeps the rest for now; at or above min-free
// it keeps them all. It never removes what the plan keeps.
//
// The order: most superseded first, then oldest installed, then by ident;
// a release other removals need goes after them, so no kept release needs
// a removed one. Sizes are allocated blocks (hard links once); free space
// is statfs's f_bavail, passed in (FreeFunc). ParseLimits reads the
// settings (SettingError names the wrong one), Limits.Check refuses what
// no file system makes right, Limits.Resolve turns percentages into bytes.
package pressure

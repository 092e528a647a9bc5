package lease

// habitatDir is the part of RelDir that belongs to Habitat (the
// Supervisor's data directory; C:\hab\sup\default on Windows): for
// reading leases it is resolved as the store's path is, following
// symlinks (an operator may have moved /hab), so that leases there keep
// protecting. ownDirs, hab-gc's own, are opened one at a time without
// following a symlink (or, on Windows, a reparse point). Nothing is ever
// written below a symlink (openLeaseDirBeneath).
const habitatDir = "hab/sup/default"

var ownDirs = []string{"hab-gc", "leases"}

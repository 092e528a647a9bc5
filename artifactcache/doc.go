// Package artifactcache cleans FS_ROOT/hab/cache/artifacts, where `hab pkg
// install` leaves every .hart it downloads. An archive is its header and
// IDENT (package hart), never its name. Plan keeps an archive whose release
// the store's plan keeps (StateOf) and removes the others but the newest
// KeepLatest of each package; what is not a .hart, a dot-file, not regular
// or too young is left. Recheck judges removals again after the store's
// Apply; Remove deletes each only if it is still the file read. prune.Run
// with Options.Cache does it all. See ExampleCache_Plan.
package artifactcache

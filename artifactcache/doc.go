// Package artifactcache cleans Habitat's artifact cache,
// FS_ROOT/hab/cache/artifacts, where `hab pkg install` leaves every .hart
// it downloads.
//
// Each file is identified by reading its header and IDENT (package hart),
// never by its name. Plan keeps an archive whose release the store's plan
// keeps (StateOf), and removes one whose release is not installed or is
// removed, but the newest KeepLatest of each origin/name (an offline
// rollback); anything else (not a .hart, a dot-file, not regular, younger
// than MinAge) is reported and left. Under the store's lock, Recheck
// judges the removals again after the store's Apply, and Remove deletes
// them through an os.Root, each checked to be the file that was read,
// renamed to a dot-name, checked again and unlinked. prune.Run with
// Options.Cache does all of this in one call.
package artifactcache

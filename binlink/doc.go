// Package binlink repairs dangling binlinks: the symlinks `hab pkg binlink`
// made (in /bin, /usr/local/bin, /hab/bin or HAB_BINLINK_DIR) into a
// release that `hab pkg uninstall` then removed (habitat-sh/habitat issue
// 6426).
//
// NewPlan decides, for each dangling binlink of an inventory, one Step:
// ActionRelink to the same command in the newest installed release of the
// package that has it, found as `hab pkg binlink` finds it
// (components/core/src/fs.rs find_command_in_pkg) and written as Habitat
// writes it (components/hab/src/command/pkg/binlink.rs); ActionRemove
// when none has it, or with RemoveOnly; ActionLeave for a link Habitat
// never makes, or whose target is there after all.
//
// Apply carries a plan out under the store's lock, which the caller holds.
// Each binlink directory is opened from the FS root without following a
// symlink (one that is a symlink is refused), and a link is changed only
// when it is still the same symlink with the same dangling target: a
// relink swaps a new link in atomically (RENAME_EXCHANGE, RENAME_SWAP)
// and checks what it swapped out; a removal renames first
// (RENAME_NOREPLACE) and checks. Anything else is put back. Without an
// atomic exchange, Apply returns errors.ErrUnsupported. On Windows,
// binstubs (.bat files) of packages with no release installed are
// removed through their directory's handle.
package binlink

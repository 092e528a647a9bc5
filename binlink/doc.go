// Package binlink repairs dangling binlinks: the symlinks `hab pkg binlink`
// made (in /bin, /usr/local/bin, /hab/bin or HAB_BINLINK_DIR) into a
// release that `hab pkg uninstall` then removed, which Habitat leaves
// behind pointing at nothing (habitat-sh/habitat issue 6426).
//
// # Planning
//
// NewPlan takes a store's inventory (pkgstore.Scan) and decides, for each
// binlink into the store that leads nowhere (pkgstore.Binlink.Dangling),
// one Step:
//
//   - ActionRelink: point it at the same command in the newest installed
//     release of the same package that has it, found as `hab pkg binlink`
//     finds a command (habitat-sh/habitat components/core/src/fs.rs
//     find_command_in_pkg: each directory the release's PATH metadata
//     lists, inside the release, holding a file of that name), with the
//     target Habitat writes: the absolute /hab/pkgs/ORIGIN/NAME/VERSION/
//     RELEASE/DIR/COMMAND path (components/hab/src/command/pkg/binlink.rs).
//   - ActionRemove: no installed release of the package has the command,
//     or Options.RemoveOnly asks for removal.
//   - ActionLeave: a link hab pkg binlink never makes (to a directory above
//     or at a release), or one whose target is there after all (a release
//     directory left behind, not installed) or cannot be checked.
//
// A plan changes nothing: it is the dry run.
//
// # Applying
//
// Apply carries a plan out under the store's exclusive lock, which the
// caller holds (pkgstore.Store.Lock; Apply checks it with HoldsLock). Each
// binlink directory is opened from the FS root one component at a time
// without following a symlink: a binlink directory that is a symlink (or
// below one) is refused and nothing in it is touched. Every change is made
// relative to that directory's descriptor, and only to the name the plan
// read, when it is still the same symlink with the same target and that
// target still leads nowhere:
//
//   - a relink creates the new symlink under a temporary name in the same
//     directory (symlinkat), then swaps it with the old link atomically
//     (renameat2 RENAME_EXCHANGE on Linux, renameatx_np RENAME_SWAP on
//     macOS), checks that what it swapped out is the very link it planned
//     on (same inode, same target) and removes that; anything else is
//     swapped back and left alone;
//   - a removal first renames the link to a temporary name without
//     replacing anything (RENAME_NOREPLACE, RENAME_EXCL), checks it there
//     the same way, and unlinks it; anything else is renamed back.
//
// Nothing that is not a symlink into the store is ever touched, and no
// symlink is ever followed. Where the system has no atomic exchange,
// Apply returns errors.ErrUnsupported.
//
// On Windows binlinks are binstubs, .bat files `hab pkg binlink` writes
// (habitat-sh/habitat components/hab/src/command/pkg/binlink.rs): one
// every path of which into the store leads nowhere is removed when no
// release of its package is installed (or with RemoveOnly), opened
// relative to its directory's handle sharing only reading, read again on
// that handle and marked for deletion there; one whose package has
// another release is left, `hab pkg binlink --force` rewriting it with
// that release's environment. Elsewhere binstubs are left alone.
//
// Result says what became of each step; history.LogBinlinks journals it.
package binlink

package pkgstore

import (
	"fmt"
	"time"
)

// ProblemKind classifies a Problem. Its string form is stable and appears
// in JSON output.
type ProblemKind string

const (
	// The release directory's TARGET is missing, a directory or not a
	// target: Habitat does not list the release, and neither does hab-gc.
	// Blocking when hab-gc cannot tell what Habitat would read there (a
	// symlink, which hab-gc never follows; a file it cannot read, which
	// Habitat run by root may; a special file): the release is then in
	// Inventory.Opaque.
	ProblemTarget ProblemKind = "bad-target"
	// TARGET names another valid target: not installed for this target.
	ProblemForeignTarget ProblemKind = "foreign-target"
	// IDENT is missing, unreadable or disagrees with the path.
	ProblemIdent ProblemKind = "ident-mismatch"
	// DEPS or TDEPS is unreadable, or a line is malformed, not fully
	// qualified, or tries to traverse. Blocking.
	ProblemDeps ProblemKind = "bad-deps"
	// A DEPS or TDEPS line names a release that is not installed.
	ProblemDepMissing ProblemKind = "dep-not-installed"
	// A DEPS line that TDEPS lacks (verification only).
	ProblemDepsNotInTDeps ProblemKind = "deps-not-in-tdeps"
	// A symlink where the store should hold a directory. Blocking: Habitat
	// follows it and may list releases behind it, which hab-gc never enters.
	ProblemSymlink ProblemKind = "symlink"
	// A directory or file could not be read. Blocking when it hides
	// releases or specs.
	ProblemUnreadable ProblemKind = "unreadable"
	// A leftover .hab-pkg-install* directory from a killed install.
	ProblemInstallLeftover ProblemKind = "install-leftover"
	// The mount table could not be read: mount points inside the store
	// are unknown when planning (removal still checks every directory).
	ProblemMounts ProblemKind = "mounts-unknown"
	// A file where a directory belongs.
	ProblemNotDir ProblemKind = "not-a-directory"
	// A name that is not valid UTF-8 or not a valid ident part. Habitat
	// lists such directories (all but release names that are not UTF-8),
	// so a release below one that Habitat lists is blocking, and in
	// Inventory.Opaque.
	ProblemBadName ProblemKind = "bad-name"
	// A spec file that cannot be parsed, or whose ident is missing or
	// malformed: what it protects is unknown. Blocking.
	ProblemSpec ProblemKind = "bad-spec"
	// A spec whose file stem differs from its ident's name (the Supervisor
	// rejects it; hab-gc still protects what it names).
	ProblemSpecName ProblemKind = "spec-name-mismatch"
	// A spec that no installed release satisfies (verification only).
	ProblemSpecUnmatched ProblemKind = "spec-unmatched"
	// A binlink whose target does not exist (verification only).
	ProblemDanglingBinlink ProblemKind = "dangling-binlink"
	// No release of the target scanned for is installed, but releases of
	// other targets are: the target is likely not the one Habitat runs as
	// (an x86_64-linux-kernel2 host), and a run would do nothing. Blocking.
	ProblemTargetNotInstalled ProblemKind = "target-not-installed"
	// A file whose modification time is ahead of the clock, among those
	// installs in progress are judged by (an archive in the artifact cache,
	// an install directory and what is in it): it is judged by its inode
	// change time instead.
	ProblemFutureTime ProblemKind = "future-time"
	// A service's PID file that cannot be read, is not a regular file or
	// names no live process: every release its spec allows is kept.
	ProblemPIDFile ProblemKind = "bad-pid-file"
	// hab-gc's record of who installed each release cannot be read:
	// every release counts as installed by an unknown program.
	ProblemInstalledBy ProblemKind = "installed-by-unreadable"
)

// Problem is one thing found wrong in a store. Problems are data: a scan of
// a damaged store completes and reports each of them.
type Problem struct {
	// Path is the file or directory concerned, relative to the FS root
	// ("hab/pkgs/core/redis/..."). Bytes that are not valid UTF-8 are
	// shown as Go escapes.
	Path    string      `json:"path"`
	Kind    ProblemKind `json:"kind"`
	Message string      `json:"message"`
	// Release is the installed release the problem concerns, fully
	// qualified, or "".
	Release string `json:"release,omitempty"`
	// Blocking marks a problem that leaves it unknown what some release or
	// service needs (unreadable or malformed DEPS/TDEPS, an unparseable
	// spec, an unreadable or symlinked directory inside the store).
	// Deleting anything while one stands is a guess.
	Blocking bool `json:"blocking"`
	// Modified is, for an install directory (ProblemInstallLeftover of an
	// install, not of hab-gc), its modification time (its inode change
	// time when that is ahead of the scan's clock: fileinfo.ChangedAt): a young one
	// is most likely an install in progress. Zero otherwise.
	Modified time.Time `json:"modified,omitzero"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: %s: %s", p.Path, p.Kind, p.Message)
}

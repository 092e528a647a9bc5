package pkgstore

import (
	"fmt"
	"time"
)

// ProblemKind classifies a Problem; its string form is stable (JSON).
type ProblemKind string

const (
	// TARGET missing or not a target; blocking (and Opaque) when what
	// Habitat would read there is unknown.
	ProblemTarget             ProblemKind = "bad-target"
	ProblemForeignTarget      ProblemKind = "foreign-target"
	ProblemIdent              ProblemKind = "ident-mismatch"
	ProblemDeps               ProblemKind = "bad-deps" // blocking
	ProblemDepMissing         ProblemKind = "dep-not-installed"
	ProblemDepsNotInTDeps     ProblemKind = "deps-not-in-tdeps" // Verify only
	ProblemSymlink            ProblemKind = "symlink"           // blocking: Habitat follows it, hab-gc never
	ProblemUnreadable         ProblemKind = "unreadable"
	ProblemInstallLeftover    ProblemKind = "install-leftover"
	ProblemMounts             ProblemKind = "mounts-unknown"
	ProblemNotDir             ProblemKind = "not-a-directory"
	ProblemBadName            ProblemKind = "bad-name"
	ProblemSpec               ProblemKind = "bad-spec" // blocking
	ProblemSpecName           ProblemKind = "spec-name-mismatch"
	ProblemSpecUnmatched      ProblemKind = "spec-unmatched"   // Verify only
	ProblemDanglingBinlink    ProblemKind = "dangling-binlink" // Verify only
	ProblemTargetNotInstalled ProblemKind = "target-not-installed"
	// A modification time ahead of the clock: the inode change time judges instead.
	ProblemFutureTime ProblemKind = "future-time"
	ProblemPIDFile    ProblemKind = "bad-pid-file"
	// hab-gc's record of who installed each release cannot be read.
	ProblemInstalledBy ProblemKind = "installed-by-unreadable"
)

// Problem is one thing found wrong in a store: a scan of a damaged store
// completes and reports each.
type Problem struct {
	Path    string      `json:"path"` // relative to the FS root
	Kind    ProblemKind `json:"kind"`
	Message string      `json:"message"`
	Release string      `json:"release,omitempty"`
	// Blocking: what some release or service needs is unknown, so
	// deleting anything is a guess.
	Blocking bool `json:"blocking"`
	// Modified dates an install directory (its change time when its
	// mtime is ahead of the clock).
	Modified time.Time `json:"modified,omitzero"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: %s: %s", p.Path, p.Kind, p.Message)
}

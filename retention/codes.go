package retention

import "github.com/hab-gc/hab-gc/internal/inuse"

// Code is the stable, machine-readable part of a Reason.
type Code = inuse.Code

// Reason codes. Keep codes first, then remove codes.
const (
	CodeLatest        Code = "latest"         // among the newest N of its origin/name
	CodeHabitat       Code = "habitat-self"   // among the newest releases of Habitat's own packages
	CodeService       Code = "loaded-service" // a loaded service runs it
	CodeServiceMaybe  Code = "loaded-service-ambiguous"
	CodeInUse              = inuse.CodeInUse            // a running process uses it (a RootFinder's root)
	CodeBinlink       Code = "binlink"                  // a binlink points into it
	CodeExcluded      Code = "excluded"                 // an exclude (pin) matches it
	CodeYoung         Code = "too-young"                // installed less than MinAge ago
	CodeDamaged       Code = "damaged"                  // its metadata is damaged (AllowDamaged)
	CodeIdentProblem  Code = "ident-problem"            // IDENT disagrees with the path or is missing
	CodeUninstall     Code = "uninstall-hook"           // last release of a package with an uninstall hook
	CodeOutsideOnly   Code = "outside-only"             // not within the Only set
	CodeDependency    Code = "dependency"               // needed by a kept release
	CodeInstalling    Code = "install-in-progress"      // an install in progress needs it, or removals wait for one to end
	CodeNotSupervisor Code = "not-supervisor-installed" // OnlySupervisorInstalled, and the Supervisor did not install it
	// CodeNoDeps: freed by a limited purge, kept by NoDeps.
	CodeNoDeps Code = "no-deps"
	CodeOld    Code = "superseded" // older than the newest N, and nothing kept needs it
	// CodeFreed: needed only by a limited purge's removed releases.
	CodeFreed Code = "freed-by-only"
	// CodeUnusedDep: store-wide FreeDeps, an older dependency nothing needs.
	CodeUnusedDep Code = "unused-dependency"
)

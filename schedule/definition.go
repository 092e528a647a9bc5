package schedule

import (
	"errors"
	"time"

	"github.com/hab-gc/hab-gc/pressure"
)

// JobType is the kind of job a schedule asks for.
type JobType string

const (
	Check JobType = "check"
	Prune JobType = "prune"
	// Pressure is a prune that runs when free space on the store's file
	// system falls below a definition's [pressure] min_free.
	Pressure JobType = "pressure"
)

// ErrDefinition is wrapped by errors about definition files.
var ErrDefinition = errors.New("invalid schedule definition")

// ErrNoDir is wrapped by the problem of a schedules directory that is
// missing or unreadable (being replaced): Reload then keeps everything.
var ErrNoDir = errors.New("schedules directory unreadable")

// JobDef is one job a definition asks for.
type JobDef struct {
	Type   JobType
	Spec   Spec
	Params Params // prune only
}

// Definition is one schedule file.
type Definition struct {
	// Name defaults to the file stem.
	Name string
	// File is the definition's path.
	File string
	// Created orders schedules for ownership; HasCreated is false when the
	// file does not say (the scheduler then uses when it first saw it).
	Created    time.Time
	HasCreated bool
	// FSRoot is the store's FS root as written; Root the canonical FS
	// root (absolute, symlinks resolved as far as it exists); Store the
	// canonical store path (the same, of FSROOT/hab/pkgs).
	FSRoot, Root, Store string
	Jobs                []JobDef
	// Pressure is the [pressure] table: prune when free space on the
	// store's file system falls below MinFree (nil: none).
	Pressure *PressureDef
	// Watch is the [watch] table: the daemon watches the store and purges
	// after installs (nil: none).
	Watch *WatchDef
}

// PressureDef is a definition's [pressure] table: when the store's file
// system has less than MinFree free, prune with Params until MaxFree is
// free (see package pressure).
type PressureDef struct {
	Params Params
	Limits pressure.Limits
}

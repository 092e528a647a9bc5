//go:build !unix && !windows

package binlink

import (
	"errors"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// dir is not available: Habitat's binlinks here are .bat files, which
// this package does not repair.
type dir struct{}

func openDir(fsRoot, rel string) (dir, error) { return dir{}, errors.ErrUnsupported }

func (dir) close() {}

func (dir) sync() {}

func (dir) apply(store *pkgstore.Store, s Step, _ func(string)) StepOutcome {
	return StepOutcome{Step: s, Err: errors.ErrUnsupported}
}

// removesBinstubs: Windows binstubs are left alone here (binstub.go).
const removesBinstubs = false

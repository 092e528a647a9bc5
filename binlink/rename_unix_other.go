//go:build unix && !linux && !darwin

package binlink

import "errors"

// exchange is not available: no atomic exchange of two names here.
func exchange(dirfd int, a, b string) error { return errors.ErrUnsupported }

// renameNoReplace is not available here.
func renameNoReplace(dirfd int, from, to string) error { return errors.ErrUnsupported }

// atomicExchange: exchange and renameNoReplace work here.
const atomicExchange = false

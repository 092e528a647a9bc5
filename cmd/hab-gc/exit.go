package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// Exit codes, documented in --help and the README.
const (
	exitOK       = 0 // success (check: no problem found)
	exitError    = 1 // an unexpected error (I/O)
	exitUsage    = 2 // bad command line, environment or config value; unusable store
	exitRefused  = 3 // refused: no policy set, a damaged store, an unmatched pin, what is in use unknown
	exitPartial  = 4 // some removals failed; the others were done
	exitLocked   = 5 // another hab-gc holds the store's lock
	exitProblems = 6 // check found errors (--strict: notices too)
	// interrupted (SIGINT, SIGTERM): a run put back what it had hidden and
	// deleted nothing more; what it did is reported
	exitInterrupted = 7
	// under disk pressure, the run removed all the policy allows and free
	// space is still below max-free
	exitNotEnough = 8
)

const exitCodesHelp = `Exit codes:
  0  success
  1  unexpected error (I/O)
  2  usage error: a bad flag, environment variable or config value; an unknown or unusable store
  3  refused: no retention policy set, a store-wide keep_latest 0 without --allow-keep-none, a real run
     by a user who may not take the store's lock or change it (root's store), the store is damaged, a binlink directory became a symlink
     after the plan, a pin on the command line matches nothing, an unsafe lock file (not a regular file
     with one link owned by this user), or what is in use cannot be told (/proc unreadable; processes
     /proc does not show fully and releases to remove that a write lease cannot check, without
     --runtime-roots=best-effort; a configured Supervisor gateway failing)
  4  partial failure: some removals failed, the others were done (binlinks: some links; daemon --once:
     some due job); with --cache, the artifact cache could not be read
  5  lock timeout: another hab-gc holds the store's lock
  6  check found errors (with --strict, notices too)
  7  interrupted (SIGINT, SIGTERM): run put back every release it had hidden and not yet deleted;
     its report says what was removed, put back and not attempted; a command stopped before changing
     anything says so; daemon --once says how many jobs ran; a command that has not returned within
     HAB_GC_STOP_GRACE (default 10s, 20s more while removing) of the first signal, or at a second
     signal, is ended by the watchdog, saying so
  8  not enough space (run --min-free): below min-free, everything the policy allows was removed and free
     space is still below max-free; the report says how much is missing and what keeps the most space`

// usageError marks errors in what the user wrote.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// refusedError marks a refusal.
type refusedError struct{ error }

func (e refusedError) Unwrap() error { return e.error }

// exitCodeError carries an exit code for an outcome that is not an error
// message of its own (check's problems, a partial run).
type exitCodeError struct{ code int }

func (e exitCodeError) Error() string { return "" }

func exitCode(err error) int {
	var u usageError
	var r refusedError
	var c exitCodeError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &c):
		return c.code
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &r), errors.Is(err, retention.ErrDamaged), errors.Is(err, pkgstore.ErrUnsafeLockFile), errors.Is(err, retention.ErrRootsUnknown):
		return exitRefused
	case errors.Is(err, pkgstore.ErrLocked):
		return exitLocked
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return exitError
}

// refusedUnwritten reports whether a command refused with err leaves
// no trace: a usage error (a bad flag, environment variable, config value
// or definition; an FS root or hab/pkgs that does not exist) writes no
// history record, no metrics, no state: a typo in --fs-root leaves the
// file system as it was. A refusal on a real store
// (damaged, an unmatched pin, in-use unknown) is still journalled.
func refusedUnwritten(err error) bool { return exitCode(err) == exitUsage }

// exitCodesMarkdown is exitCodesHelp as a markdown list, one item per
// code with its continuation lines joined, for the man pages: man fills
// each item's text within the item instead of re-wrapping help lines.
func exitCodesMarkdown() string {
	lines := strings.Split(exitCodesHelp, "\n")
	var b strings.Builder
	b.WriteString(lines[0] + "\n")
	for _, l := range lines[1:] {
		code, text, _ := strings.Cut(strings.TrimSpace(l), "  ")
		if len(code) == 1 && code[0] >= '0' && code[0] <= '9' {
			fmt.Fprintf(&b, "\n* %s: %s", code, strings.TrimSpace(text))
			continue
		}
		b.WriteString(" " + strings.TrimSpace(l))
	}
	return b.String() + "\n"
}

// manExitCodes rewrites the exit-code list of every command's long help
// as exitCodesMarkdown, for man pages only (--help keeps the aligned
// list).
func manExitCodes(c *cobra.Command) {
	c.Long = strings.ReplaceAll(c.Long, exitCodesHelp, exitCodesMarkdown())
	for _, sub := range c.Commands() {
		manExitCodes(sub)
	}
}

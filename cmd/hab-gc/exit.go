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

// Exit codes: exitCodesHelp says what each means.
const (
	exitOK = iota
	exitError
	exitUsage
	exitRefused
	exitPartial
	exitLocked
	exitProblems
	exitInterrupted
	exitNotEnough
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

type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

type refusedError struct{ error }

func (e refusedError) Unwrap() error { return e.error }

// exitCodeError is an exit code whose message has been printed.
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

// refusedUnwritten reports whether err leaves no trace (no history, no
// metrics): a usage error, such as a typo in --fs-root.
func refusedUnwritten(err error) bool { return exitCode(err) == exitUsage }

// exitCodesMarkdown is exitCodesHelp as a markdown list, for man to fill.
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

func manExitCodes(c *cobra.Command) {
	c.Long = strings.ReplaceAll(c.Long, exitCodesHelp, exitCodesMarkdown())
	for _, sub := range c.Commands() {
		manExitCodes(sub)
	}
}

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/lease"
	"github.com/hab-gc/hab-gc/pkgstore"
)

func (a *app) leaseCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lease IDENT... -- COMMAND [ARG...]",
		Short: "Hold a lease on releases while COMMAND runs: no hab-gc removes them meanwhile",
		Long: `Hold a lease on releases for the life of COMMAND: every hab-gc on the machine (the CLI, the daemon, a
program using the library) keeps them, with reason "leased", and puts back one it had just hidden.
IDENT is a release (core/openssl/1.1.1k/20210401000000), or origin/name[/version] for every installed
release that satisfies it. The lease is a locked file in FS_ROOT/hab/sup/default/hab-gc/leases; it
ends when COMMAND exits, or when hab-gc does, however it ends (the kernel releases the lock). hab-gc
exits with COMMAND's exit code; SIGINT and SIGTERM are passed on to COMMAND. Dead leases (their holder
gone) are removed by lease and by real runs, never by list, why or a dry run. A leases directory (or
hab-gc's directory above it) that is a symlink is never followed: every command refuses it.`,
		Example: `  hab-gc lease core/openssl core/glibc -- hab pkg install core/redis`,
		Args: args(func(cmd *cobra.Command, argv []string) error {
			dash := cmd.ArgsLenAtDash()
			switch {
			case dash < 0:
				return errors.New("usage: hab-gc lease IDENT... -- COMMAND [ARG...] (the -- is needed)")
			case dash == 0:
				return errors.New("no IDENT to lease before --")
			case dash == len(argv):
				return errors.New("no COMMAND after --")
			}
			return nil
		}),
	}
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, argv []string) error {
		dash := cmd.ArgsLenAtDash()
		var ids []pkgstore.Ident
		for _, s := range argv[:dash] {
			id, err := pkgstore.ParseIdent(s)
			if err != nil {
				return usageError{err}
			}
			ids = append(ids, id)
		}
		command := argv[dash:]
		// A typo in --fs-root must not create a leases directory.
		store, err := c.open()
		if err != nil {
			return err
		}
		for _, id := range ids {
			if fi, err := store.Root().Lstat(id.String()); err != nil || !fi.IsDir() {
				fmt.Fprintf(a.textErr, "hab-gc: warning: lease %s matches no installed release (a typo would protect nothing)\n", id)
			}
		}
		store.Close()
		l, err := lease.Acquire(c.fsRoot(), "hab-gc lease -- "+strings.Join(command, " "), ids...)
		if err != nil {
			return err
		}
		defer l.Release()
		if _, err := lease.Sweep(c.fsRoot()); err != nil {
			fmt.Fprintf(a.textErr, "hab-gc: warning: dead leases not removed: %v\n", err)
		}
		child := exec.CommandContext(cmd.Context(), command[0], command[1:]...)
		child.Stdin, child.Stdout, child.Stderr = os.Stdin, a.stdout, a.stderr
		child.Cancel = func() error { return child.Process.Signal(syscall.SIGTERM) }
		child.WaitDelay = time.Minute
		if err = child.Start(); err == nil {
			// COMMAND must not run on without its lease.
			release := a.stop.hold(child.WaitDelay, func() { child.Process.Kill() })
			err = child.Wait()
			release()
		}
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee) && ee.ExitCode() >= 0:
			return exitCodeError{ee.ExitCode()}
		case err != nil:
			return fmt.Errorf("running %s: %w", command[0], err)
		}
		return nil
	})
	return cmd
}

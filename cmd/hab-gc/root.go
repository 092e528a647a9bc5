package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hab-gc/hab-gc/internal/display"
	"github.com/hab-gc/hab-gc/internal/suggest"
	"github.com/hab-gc/hab-gc/runroots"
)

// execute builds a fresh command tree, runs it and returns the exit code.
func execute(args []string, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	return executeWith(args, stdout, stderr, lookup, os.Exit, nil)
}

// executeWith is execute with the function that ends the process early
// and pre, run once signals are watched (tests block there).
func executeWith(args []string, stdout, stderr io.Writer, lookup func(string) (string, bool), exit func(int), pre func()) int {
	grace, err := stopGrace(lookup)
	if err != nil {
		fmt.Fprintf(stderr, "hab-gc: %v\n", err)
		return exitUsage
	}
	stopper := &stopper{stderr: stderr, grace: grace, exit: exit}
	ctx, stop := stopper.start()
	defer stop()
	if pre != nil {
		pre()
	}
	root := newRootCmdWith(stdout, stderr, lookup, stopper)
	root.SetArgs(joinOptionalValues(args))
	cmd, err := root.ExecuteContextC(ctx)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		// A run stopped while changing the store says so itself.
		stopper.say(fmt.Sprintf("interrupted (%v): stopped before changing anything", context.Cause(ctx)))
		return exitInterrupted
	}
	if err != nil {
		if _, ok := err.(exitCodeError); !ok {
			fmt.Fprintf(stderr, "hab-gc: %s\n", display.Escape(err.Error()))
		}
		if errors.Is(err, runroots.ErrBlind) {
			fmt.Fprintln(stderr, "hab-gc: to go on with what could be seen and checked: --runtime-roots=best-effort (HAB_GC_RUNTIME_ROOTS, runtime_roots)")
		}
		code := exitCode(err)
		if code == exitError && (cmd == root || strings.HasPrefix(err.Error(), "unknown command")) {
			code = exitUsage // cobra's own complaints about the command line
		}
		return code
	}
	return exitOK
}

// plainFlagError ends pflag's complaint about a value in "must be true or
// false" rather than Go's parser's words.
func plainFlagError(err error) error {
	msg := err.Error()
	i := strings.Index(msg, "strconv.Parse")
	if i < 0 {
		return err
	}
	what := "must be a number"
	switch {
	case strings.HasPrefix(msg[i:], "strconv.ParseBool"):
		what = "must be true or false"
	case strings.HasPrefix(msg[i:], "strconv.ParseInt"), strings.HasPrefix(msg[i:], "strconv.ParseUint"):
		what = "must be a whole number"
	}
	if strings.HasSuffix(msg, "value out of range") {
		what = "out of range"
	}
	return errors.New(msg[:i] + what)
}

// flagHint adds the nearest flag to pflag's "unknown flag".
func flagHint(c *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var known []string
	c.Flags().VisitAll(func(f *pflag.Flag) { known = append(known, "--"+f.Name) })
	return fmt.Errorf("%w%s", err, suggest.Hint("--"+name, known, max(2, len(name)/3)))
}

// habitatSpellings accepts Habitat's spelling of a flag for ours:
// `hab pkg uninstall --dryrun`.
func habitatSpellings(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if name == "dryrun" {
		name = "dry-run"
	}
	return pflag.NormalizedName(name)
}

// isWholeNumber reports whether s is an optional "-" and decimal digits.
func isWholeNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// joinOptionalValues makes "--keep-latest 3" "--keep-latest=3", as
// Habitat spells it; pflag would read a bare --keep-latest (1) and "3".
// A negative number is joined to be refused by name.
func joinOptionalValues(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--keep-latest" && i+1 < len(args) && isWholeNumber(args[i+1]) {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// args wraps a cobra argument check so that its complaint is a usage error.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return usageError{err}
		}
		return nil
	}
}

type app struct {
	// text and textErr are stdout and stderr for people: every name
	// escaped (display.Escape) so that none can be spoofed.
	stdout, stderr io.Writer
	text, textErr  io.Writer
	lookup         func(string) (string, bool)
	stop           *stopper // nil: a tree not run by execute (docs)
}

func newRootCmd(stdout, stderr io.Writer, lookup func(string) (string, bool)) *cobra.Command {
	return newRootCmdWith(stdout, stderr, lookup, nil)
}

func newRootCmdWith(stdout, stderr io.Writer, lookup func(string) (string, bool), stop *stopper) *cobra.Command {
	a := &app{stdout: stdout, stderr: stderr, text: display.Writer(stdout), textErr: display.Writer(stderr), lookup: lookup, stop: stop}
	root := &cobra.Command{
		Use:   "hab-gc",
		Short: "Remove old releases from a Habitat package store, never anything still needed",
		Long: `hab-gc keeps Habitat package stores (/hab/pkgs) lean and safe. It keeps the newest N releases of
every package, every release a loaded service or any running process uses, every binlinked and pinned release, and everything
those need, transitively; it plans first, explains every decision, then removes the rest safely.

Settings come from flags, then environment variables, then a TOML config file (--config, else
FS_ROOT/hab/etc/hab-gc.toml), then defaults.

` + exitCodesHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{plainFlagError(flagHint(c, err))} })
	root.SetGlobalNormalizationFunc(habitatSpellings)
	// --version without cobra's -v, which is --verbose.
	root.Flags().Bool("version", false, "print hab-gc's version (as hab-gc version)")
	addRootFlags(root.PersistentFlags())
	root.PersistentFlags().Bool("json", false, "print JSON instead of tables")

	run, list, why, check, daemon, watchC := a.runCmd(), a.listCmd(), a.whyCmd(), a.checkCmd(), a.daemonCmd(), a.watchCmd()
	for _, fs := range []*pflag.FlagSet{root.PersistentFlags(), run.Flags(), list.Flags(), why.Flags(), check.Flags(), daemon.Flags(), watchC.Flags()} {
		annotateSettings(fs)
	}
	history := a.historyCmd()
	run.ValidArgsFunction, list.ValidArgsFunction = a.identCompletion(0), a.identCompletion(0)
	why.ValidArgsFunction, history.ValidArgsFunction = a.identCompletion(1), a.identCompletion(1)
	root.AddCommand(run, list, why, check, watchC, a.graphCmd(), daemon, a.scheduleCmd(), history, a.leaseCmd(), a.versionCmd(), a.docsCmd(root), safetyTopic())
	root.AddCommand(a.binlinksCmd())
	root.AddCommand(topicCmds(root)...)
	root.SetHelpCommand(helpCmd(root))
	help := root.HelpFunc()
	// Help is filled to the terminal's width: the long help before its
	// docs page is added, then every line still too wide.
	root.SetHelpFunc(func(c *cobra.Command, argv []string) {
		out := c.OutOrStdout()
		w := helpWidth(out, lookup)
		c.Long = reflow(c.Long, w)
		fillTopic(c)
		var b strings.Builder
		c.SetOut(&b)
		help(c, argv)
		c.SetOut(out)
		io.WriteString(out, fitLines(b.String(), w))
	})
	return root
}

// annotateSettings ends every setting's flag help with its variables and
// config key.
func annotateSettings(fs *pflag.FlagSet) {
	for _, s := range settings() {
		f := fs.Lookup(s.flag)
		if f == nil {
			continue
		}
		if own := " (env " + s.env[0] + ")"; strings.HasSuffix(f.Usage, own) { // the text names it already
			f.Usage = strings.TrimSuffix(f.Usage, own) + fmt.Sprintf(" (env %s; config key %s)", s.env[0], s.key)
			continue
		}
		if strings.Contains(f.Usage, "env "+s.env[0]) {
			f.Usage += fmt.Sprintf(" (config key %s)", s.key)
			continue
		}
		f.Usage += fmt.Sprintf(" (env %s; config key %s)", strings.Join(s.env, ", else "), s.key)
	}
	if f := fs.Lookup("config"); f != nil {
		f.Usage += " (env HAB_GC_CONFIG)"
	}
}

// addRootFlags adds the flags every command shares.
func addRootFlags(pf *pflag.FlagSet) {
	pf.String("fs-root", "", "the FS root the store is under: the store is FS_ROOT/hab/pkgs (default /)")
	pf.String("config", "", "TOML config file (default FS_ROOT/hab/etc/hab-gc.toml when present)")
	pf.String("target", "", "package target to consider installed (default this machine's)")
	pf.String("lock-timeout", "", "how long to wait for another hab-gc's lock on the store (default 30s)")
}

func (a *app) withConfig(f func(cmd *cobra.Command, c *config, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		c, err := loadConfig(cmd, a.lookup)
		if err != nil {
			return err
		}
		for _, w := range c.warnings {
			fmt.Fprintf(a.textErr, "hab-gc: warning: %s\n", w)
		}
		return f(cmd, c, args)
	}
}

func (a *app) wantJSON(cmd *cobra.Command) bool {
	j, _ := cmd.Flags().GetBool("json")
	return j
}

// buildVersion is the module version and the VCS commit, "+dirty" when
// the build had uncommitted changes.
func buildVersion(bi *debug.BuildInfo, ok bool) (version, commit string) {
	version = "devel"
	if !ok {
		return version, ""
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if commit != "" && dirty {
		commit += "+dirty"
	}
	return version, commit
}

func version() string {
	v, commit := buildVersion(debug.ReadBuildInfo())
	if commit != "" {
		return fmt.Sprintf("%s (commit %s)", v, commit)
	}
	return v
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print hab-gc's version and the commit it was built from, when known (--json: as JSON)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.wantJSON(cmd) {
				v, commit := buildVersion(debug.ReadBuildInfo())
				return writeJSON(a.stdout, struct {
					Version string  `json:"version"`
					Commit  *string `json:"commit"`
				}{v, nullable(commit)})
			}
			_, err := fmt.Fprintf(a.text, "hab-gc %s\n", version())
			return err
		},
	}
}

// nullable is nil (JSON null) for "".
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

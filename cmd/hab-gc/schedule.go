package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/metrics"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// schedFlags are the flags shared by daemon and the schedule commands.
func schedFlags(cmd *cobra.Command) {
	cmd.Flags().String("schedules", "", "directory of schedule definitions (*.toml)")
	cmd.Flags().String("state", "", "state file (default FS_ROOT/hab/sup/default/hab-gc/schedule-state.json)")
	cmd.Flags().String("timezone", "UTC", "time zone cron expressions are read in (e.g. Europe/Berlin, Local)")
	cmd.Flags().String("now", "", "set the clock to this RFC 3339 time (tests and rehearsals)")
	cmd.Flags().Duration("catch-up-spread", 10*time.Minute, "a run missed while hab-gc was not running waits a stable per-machine delay up to this long (0: at once)")
}

// zoneAndClock reads --timezone and --now.
func zoneAndClock(cmd *cobra.Command) (*time.Location, func() time.Time, error) {
	tz, _ := cmd.Flags().GetString("timezone")
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("invalid --timezone %q: %v", tz, err)}
	}
	clock := time.Now
	if now, _ := cmd.Flags().GetString("now"); now != "" {
		t0, err := time.Parse(time.RFC3339, now)
		if err != nil {
			return nil, nil, usageError{fmt.Errorf("invalid --now %q: not an RFC 3339 time", now)}
		}
		start := time.Now()
		clock = func() time.Time { return t0.Add(time.Since(start)) }
	}
	return loc, clock, nil
}

// buildTime is the time of the commit hab-gc was built from (vcs.time),
// zero when unknown: a clock before it is obviously wrong
// (schedule.Scheduler.NotBefore).
func buildTime(bi *debug.BuildInfo, ok bool) time.Time {
	if !ok {
		return time.Time{}
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.time" {
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				return t
			}
		}
	}
	return time.Time{}
}

// definitionsRoot is the FS root of the schedule commands and the daemon:
// --fs-root (or its setting) when given; otherwise, when every definition
// in dir that parses names one fs_root, that one (its etc/machine-id and
// its default state file are the daemon's: issue 33 item 5); else "/".
func definitionsRoot(c *config, dir string) string {
	if c.source("fs_root") != "default" {
		return c.fsRoot()
	}
	defs, _ := schedule.LoadDir(dir)
	root := ""
	for _, d := range defs {
		switch {
		case root == "":
			root = d.FSRoot
		case filepath.Clean(d.FSRoot) != filepath.Clean(root):
			return c.fsRoot()
		}
	}
	if root == "" {
		return c.fsRoot()
	}
	return root
}

// newScheduler builds a scheduler from the flags. Only the daemon writes
// the state file: readOnly for the schedule commands.
func (a *app) newScheduler(cmd *cobra.Command, c *config, readOnly bool, m *metricsFile) (*schedule.Scheduler, error) {
	dir, _ := cmd.Flags().GetString("schedules")
	if dir == "" {
		return nil, usageError{fmt.Errorf("--schedules DIR is required")}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, usageError{fmt.Errorf("invalid --schedules %q: not a directory", dir)}
	}
	fsRoot := definitionsRoot(c, dir)
	state, _ := cmd.Flags().GetString("state")
	stateRoot := "" // a --state given is the user's choice, its directory made as given
	if state == "" {
		// Below the FS root: never written through a symlink there.
		state, stateRoot = filepath.Join(fsRoot, "hab", "sup", "default", "hab-gc", "schedule-state.json"), fsRoot
		// The default state file lives beside a store: without one (a
		// typo in --fs-root), nothing is created there.
		if st, err := c.openAt(fsRoot); err != nil {
			if !readOnly {
				return nil, usageError{fmt.Errorf("%w; the state file defaults to FS_ROOT/hab/sup/default/hab-gc/schedule-state.json: name the FS root with --fs-root, or the state file with --state", err)}
			}
		} else {
			st.Close()
		}
	}
	loc, clock, err := zoneAndClock(cmd)
	if err != nil {
		return nil, err
	}
	timeout, err := c.lockTimeout()
	if err != nil {
		return nil, err
	}
	machine, err := a.machineIDAt(fsRoot)
	if err != nil {
		return nil, err
	}
	_, explicit := a.explicitMachineID()
	spread, _ := cmd.Flags().GetDuration("catch-up-spread")
	if spread < 0 {
		return nil, usageError{fmt.Errorf("invalid --catch-up-spread %v: must be 0 or more", spread)}
	}
	setup := a.jobSetup(cmd)
	var notRun func(schedule.Job, string)
	if m != nil {
		notRun = func(j schedule.Job, _ string) {
			m.m.ObserveNotRun(j.Store, string(j.Type))
			if m.path != "" {
				m.write(a)
			}
		}
	}
	var notBefore time.Time
	if now, _ := cmd.Flags().GetString("now"); now == "" {
		notBefore = buildTime(debug.ReadBuildInfo()) // a rehearsal's --now may be any time
	}
	return &schedule.Scheduler{NotRun: notRun, Dir: dir, StatePath: state, StateRoot: stateRoot, Location: loc, Clock: clock, LockTimeout: timeout, ReadOnly: readOnly, Machine: machine, ForceMachine: explicit, CatchUpSpread: spread, NotBefore: notBefore,
		Logger: slog.New(uniqueKeys(slog.NewTextHandler(a.stderr, nil))),
		Run: func(ctx context.Context, j schedule.Job, store *pkgstore.Store, now time.Time) schedule.RunResult {
			start := time.Now()
			res := schedule.RunJob(ctx, j, store, now, setup)
			if m != nil {
				observeJob(m.m, j, store.FSRoot(), start, time.Now(), res)
				if m.path != "" {
					m.write(a)
				}
			}
			return res
		}}, nil
}

// allRejected returns the rejection when the definitions hold no job at
// all and at least one was rejected, reading them without writing the
// state file.
func (a *app) allRejected(cmd *cobra.Command, c *config) error {
	probe, err := a.newScheduler(cmd, c, true, nil)
	if err != nil {
		return nil
	}
	probe.Logger = slog.New(slog.DiscardHandler)
	rejected, _ := a.reload(probe)
	if rejected != nil && len(probe.Jobs())+len(probe.PressureJobs()) == 0 {
		return rejected
	}
	return nil
}

// reload loads the definitions; rejected is a usage error naming every
// rejected file (with line and column), for the caller to return once its
// work with the valid ones is done.
func (a *app) reload(s *schedule.Scheduler) (rejected, err error) {
	probs, err := s.Reload()
	if len(probs) > 0 {
		rejected = usageError{fmt.Errorf("%d schedule definition(s) rejected:\n%w", len(probs), errors.Join(probs...))}
	}
	return rejected, err
}

func (a *app) daemonCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "daemon --schedules DIR",
		Short: "Run scheduled check and prune jobs until stopped (--once: what is due now, then exit)",
		Long: `Run the effective jobs of a directory of schedule definitions at their times, each under its store's
lock, recording every run in the state file. Stops on SIGINT or SIGTERM (a running job finishes or stops
safely); reloads the definitions on SIGHUP and whenever the directory changes. With --once, runs what is
due now (a missed run included, once) and exits: for systemd timers or cron.`,
		Args: args(cobra.NoArgs),
	}
	schedFlags(cmd)
	cmd.Flags().Bool("once", false, "run what is due now and exit")
	cmd.Flags().String("job", "", "with --once: only this job (its key, see schedule list)")
	cmd.Flags().String("log-format", "text", "log format: text or json")
	addMetricsFileFlag(cmd)
	cmd.Flags().String("metrics-listen", "", "serve Prometheus metrics at http://ADDR/metrics (e.g. :9725, 127.0.0.1:9725)")
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, _ []string) error {
		defer a.stop.hold(applyStopGrace, func() {})() // a prune may be removing when stopped
		listen, _ := cmd.Flags().GetString("metrics-listen")
		once, _ := cmd.Flags().GetBool("once")
		if listen != "" && once {
			return usageError{fmt.Errorf("--metrics-listen serves the daemon's metrics while it runs: not with --once (use --metrics-file)")}
		}
		// Metrics: one set for the process, read back from --metrics-file
		// when there is one; each job's run updates it (and the file).
		var mf *metricsFile
		if path := c.raw("metrics_file"); path != "" || listen != "" {
			var err error
			if mf, err = a.openMetricsFile(c, c.fsRoot(), true); err != nil {
				return err
			}
			if mf == nil {
				mf = &metricsFile{m: metrics.New()}
			}
		}
		s, err := a.newScheduler(cmd, c, false, mf)
		if err != nil {
			return err
		}
		switch f, _ := cmd.Flags().GetString("log-format"); f {
		case "json":
			s.Logger = slog.New(uniqueKeys(slog.NewJSONHandler(a.stderr, nil)))
			a.stop.logTo(s.Logger) // the stop notices too
		case "text":
		default:
			return usageError{fmt.Errorf("invalid --log-format %q: must be text or json", f)}
		}
		s.Only, _ = cmd.Flags().GetString("job")
		if s.Only != "" && !once {
			return usageError{fmt.Errorf("--job needs --once")}
		}
		if once {
			// With no definition accepted there is nothing to run:
			// say so without creating the state file or its lock.
			if rejected := a.allRejected(cmd, c); rejected != nil {
				return rejected
			}
		}
		rejected, err := a.reload(s)
		if err != nil {
			return err
		}
		if s.Only != "" && !slices.ContainsFunc(append(s.Jobs(), s.PressureJobs()...), func(j schedule.Job) bool { return j.Key == s.Only }) {
			if rejected != nil {
				return fmt.Errorf("--job %s: no such job (see schedule list); %w", s.Only, rejected)
			}
			return usageError{fmt.Errorf("--job %s: no such job in %s (see schedule list)", s.Only, s.Dir)}
		}
		if once {
			failed := 0
			outs := s.RunOnce(cmd.Context()) // a missed run waits its catch-up delay (--catch-up-spread)
			if cmd.Context().Err() == nil {
				logNothingDue(s, outs)
			}
			if ctx := cmd.Context(); ctx.Err() != nil {
				// A job stopped by the signal stays due (a prune put back
				// what it had hidden; see retention.Apply): not a failure.
				fmt.Fprintf(a.textErr, "hab-gc: interrupted (%v): %d job(s) ran; what did not run stays due\n", context.Cause(ctx), ran(outs))
				return exitCodeError{exitInterrupted}
			}
			for _, o := range outs {
				if o.Failed() {
					failed++
				}
			}
			if failed > 0 {
				if rejected != nil {
					fmt.Fprintf(a.textErr, "hab-gc: %v\n", rejected)
				}
				return exitCodeError{exitPartial}
			}
			return rejected
		}
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
		ctx, cancel := context.WithCancel(cmd.Context())
		defer cancel()
		reload := make(chan struct{})
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-hup:
					select {
					case reload <- struct{}{}:
					case <-ctx.Done():
						return
					}
				}
			}
		}()
		if listen != "" {
			for _, j := range s.Jobs() {
				mf.m.Watch(j.Store, j.FSRoot)
			}
			if err := serveMetrics(ctx, listen, mf.m, s.Logger); err != nil {
				return err
			}
		}
		s.Logger.Info("hab-gc daemon started", "jobs", len(s.Jobs()), "schedules", s.Dir, "state", s.StatePath)
		wait := a.startWatches(ctx, cmd, s, mf)
		err = s.Serve(ctx, reload)
		cancel()
		wait()
		s.Logger.Info("hab-gc daemon stopped")
		return err
	})
	return cmd
}

func (a *app) scheduleCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule",
		Short: "Inspect and export scheduled jobs",
	}
	list := &cobra.Command{
		Use:   "list --schedules DIR",
		Short: "Show each effective job: type, store, spec, resolved cron, owner, members, next and last run",
		Args:  args(cobra.NoArgs),
	}
	schedFlags(list)
	list.RunE = a.withConfig(func(cmd *cobra.Command, c *config, _ []string) error {
		s, err := a.newScheduler(cmd, c, true, nil)
		if err != nil {
			return err
		}
		rejected, err := a.reload(s)
		if err != nil {
			return err
		}
		if err := stateWritable(s.StatePath); err != nil {
			fmt.Fprintf(a.textErr, "hab-gc: warning: the state file cannot be written, so the daemon cannot record runs: %v\n", err)
		}
		sts, err := s.Status()
		if err != nil {
			return err
		}
		watches, _ := s.Watches()
		if a.wantJSON(cmd) {
			type jobJSON struct {
				Key      string              `json:"key"`
				Type     schedule.JobType    `json:"type"`
				Store    string              `json:"store"`
				Spec     string              `json:"spec"`
				Cron     string              `json:"cron"`
				Owner    string              `json:"owner"`
				Members  []string            `json:"members"`
				Next     string              `json:"next"`
				LastRun  *string             `json:"last_run"`
				Runs     int                 `json:"runs"`
				Result   *schedule.RunResult `json:"last_result"`
				LastErr  string              `json:"last_error,omitempty"`
				Timezone string              `json:"timezone"`
				InState  *bool               `json:"in_state,omitempty"` // scheduled jobs only
			}
			type watchJSON struct {
				Name   string `json:"name"`
				Store  string `json:"store"`
				Policy string `json:"policy"`
			}
			out := struct {
				Jobs    []jobJSON   `json:"jobs"`
				Watches []watchJSON `json:"watches"`
			}{Jobs: []jobJSON{}, Watches: []watchJSON{}}
			for _, d := range watches {
				out.Watches = append(out.Watches, watchJSON{d.Name, d.Store, d.Watch.String()})
			}
			for _, st := range sts {
				j := jobJSON{Key: st.Key, Type: st.Type, Store: st.Store, Spec: st.Spec.Raw, Cron: st.Cron, Owner: st.Owner,
					Members: st.Members, Next: st.Next.Format(time.RFC3339), Runs: st.State.Runs, LastErr: st.State.LastError,
					Timezone: st.Spec.Zone(s.Location).String(), InState: &st.InState}
				if st.State.LastRun != nil {
					lr := st.State.LastRun.Start.Format(time.RFC3339)
					j.LastRun, j.Result = &lr, &st.State.LastRun.Result
				}
				out.Jobs = append(out.Jobs, j)
			}
			for _, p := range s.PressureJobs() {
				out.Jobs = append(out.Jobs, jobJSON{Key: p.Key, Type: p.Type, Store: p.Store, Spec: pressureSpec(p), Owner: p.Owner,
					Members: p.Members, Next: "", Timezone: s.Location.String()})
			}
			if err := writeJSON(a.stdout, out); err != nil {
				return err
			}
			return rejected
		}
		tw := tabwriter.NewWriter(a.text, 0, 4, 2, ' ', 0)
		absent := false
		fmt.Fprintln(tw, "KEY\tTYPE\tSTORE\tSPEC\tCRON\tOWNER\tMEMBERS\tNEXT\tLAST RUN\tRUNS")
		for _, st := range sts {
			last := "never"
			if lr := st.State.LastRun; lr != nil {
				last = lr.Start.Format(time.RFC3339)
				if lr.Result.Error != "" {
					last += " (failed)"
				} else if !lr.Result.OK {
					last += " (problems)"
				}
			}
			if st.State.LastError != "" {
				last += " (error: " + st.State.LastError + ")"
			}
			next := st.Next.Format(time.RFC3339)
			if !st.InState {
				next += " " + notInState
				absent = true
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", st.Key, st.Type, st.Store, st.Spec.Raw, st.Cron, st.Owner,
				strings.Join(st.Members, ","), next, last, st.State.Runs)
		}
		for _, p := range s.PressureJobs() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Key, p.Type, p.Store, pressureSpec(p), "-", p.Owner,
				strings.Join(p.Members, ","), "when free space is low (looked at every minute)", "see hab-gc history", "-")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if absent {
			fmt.Fprintln(a.text, "\n"+notInState+": "+notInStateNote)
		}
		if len(watches) > 0 {
			fmt.Fprintln(a.text, "\nWatched by the daemon (purge after each install; hab-gc watch):")
			fmt.Fprintln(tw, "SCHEDULE\tSTORE\tPOLICY")
			for _, d := range watches {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Name, d.Store, d.Watch.String())
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
		return rejected
	})

	next := &cobra.Command{
		Use:   "next SPEC --store PATH --job prune|check",
		Short: "Print the cron expression a spec resolves to for a job on a store, and its next run times",
		Long: `Print the concrete cron expression SPEC resolves to, then its next --count run times (in --timezone).
For a randomized spec (@daily-random...) it depends on the store (an FS root, or the store directory
itself), the job type and, for prune, the policy flags, exactly as in a definition file, and on this
machine's identity (HAB_GC_MACHINE_ID, else FS_ROOT/etc/machine-id, else the host name).`,
		Args: args(cobra.ExactArgs(1)),
	}
	next.Flags().String("store", "/", "the store: an FS root (as fs_root in definitions) or its hab/pkgs")
	next.Flags().String("job", "prune", "job type: prune or check")
	next.Flags().Int("keep-latest", 0, "prune: keep_latest")
	next.Flags().StringArray("exclude", nil, "prune: exclude (repeatable)")
	next.Flags().String("min-age", "", "prune: min_age")
	next.Flags().Int("count", 5, "how many next run times to print after the expression")
	next.Flags().String("timezone", "UTC", "time zone cron expressions are read in (e.g. Europe/Berlin, Local)")
	next.Flags().String("now", "", "set the clock to this RFC 3339 time (tests and rehearsals)")
	next.Flags().String("state", "", "the daemon's state file, whose recorded machine identity is used (default FS_ROOT/hab/sup/default/hab-gc/schedule-state.json)")
	next.RunE = a.withConfig(func(cmd *cobra.Command, c *config, argv []string) error {
		loc, clock, err := zoneAndClock(cmd)
		if err != nil {
			return err
		}
		count, _ := cmd.Flags().GetInt("count")
		if count < 0 {
			return usageError{fmt.Errorf("invalid --count %d: must be 0 or more", count)}
		}
		machine, err := a.machineID(c)
		if err != nil {
			return err
		}
		// The identity a daemon's state recorded is the one its times
		// were drawn with (unless HAB_GC_MACHINE_ID says otherwise).
		if _, explicit := a.explicitMachineID(); !explicit {
			state, _ := cmd.Flags().GetString("state")
			if state == "" {
				state = filepath.Join(c.fsRoot(), "hab", "sup", "default", "hab-gc", "schedule-state.json")
			}
			if st, err := schedule.LoadState(state); err == nil && st.Machine != "" {
				machine = st.Machine
			}
		}
		spec, err := schedule.ParseSpec(argv[0])
		if err != nil {
			return usageError{err}
		}
		storeFlag, _ := cmd.Flags().GetString("store")
		root := storeFlag
		if clean := filepath.Clean(storeFlag); strings.HasSuffix(clean, filepath.Join("hab", "pkgs")) {
			root = filepath.Dir(filepath.Dir(clean))
		}
		store, err := schedule.CanonicalStore(root)
		if err != nil {
			return usageError{err}
		}
		typ, _ := cmd.Flags().GetString("job")
		params := ""
		switch schedule.JobType(typ) {
		case schedule.Check:
		case schedule.Prune:
			var p schedule.Params
			n, _ := cmd.Flags().GetInt("keep-latest")
			p.KeepLatest = retention.KeepCount(n)
			p.Exclude, _ = cmd.Flags().GetStringArray("exclude")
			if m, _ := cmd.Flags().GetString("min-age"); m != "" {
				d, err := retention.ParseDuration(m, retention.NoMinAge)
				if err != nil {
					return usageError{fmt.Errorf("invalid --min-age %q", m)}
				}
				p.MinAge = d
			}
			params = p.Canonical()
		default:
			return usageError{fmt.Errorf("invalid --job %q: must be prune or check", typ)}
		}
		expr := schedule.Resolve(spec, schedule.HashInput{Store: store, Type: schedule.JobType(typ), Params: params, Spec: spec.Canonical, Machine: machine, Zone: loc})
		fmt.Fprintln(a.text, expr)
		cr, err := schedule.NewCron(expr, spec.Zone(loc))
		if err != nil {
			return err
		}
		for t, i := clock(), 0; i < count; i++ {
			if t = cr.Next(t); t.IsZero() {
				break
			}
			fmt.Fprintln(a.text, t.In(loc).Format(time.RFC3339))
		}
		return nil
	})

	export := &cobra.Command{
		Use:   "export --format systemd --schedules DIR --out DIR",
		Short: "Write a systemd timer and service per effective job (OnCalendar at the resolved time, Persistent=true)",
		Args:  args(cobra.NoArgs),
	}
	schedFlags(export)
	export.Flags().String("format", "systemd", "export format (systemd)")
	export.Flags().String("out", "", "directory to write the units into")
	export.Flags().String("exe", "", "path of hab-gc in ExecStart (default: this executable)")
	export.RunE = a.withConfig(func(cmd *cobra.Command, c *config, _ []string) error {
		if f, _ := cmd.Flags().GetString("format"); f != "systemd" {
			return usageError{fmt.Errorf("invalid --format %q: only systemd is supported", f)}
		}
		out, _ := cmd.Flags().GetString("out")
		if out == "" {
			return usageError{fmt.Errorf("--out DIR is required")}
		}
		s, err := a.newScheduler(cmd, c, true, nil)
		if err != nil {
			return err
		}
		rejected, err := a.reload(s)
		if err != nil {
			return err
		}
		if rejected != nil {
			return rejected // exporting without them would remove their units
		}
		exe, _ := cmd.Flags().GetString("exe")
		if exe == "" {
			if exe, err = os.Executable(); err != nil {
				exe = "hab-gc"
			}
		}
		inv, err := a.invocation(cmd, s, exe)
		if err != nil {
			return err
		}
		jobs := s.Jobs()
		for _, p := range s.PressureJobs() {
			p.Cron = "* * * * *" // the daemon looks at the free space every minute
			jobs = append(jobs, p)
		}
		written, err := writeUnits(out, jobs, inv, s.Location)
		if err != nil {
			for _, w := range written {
				fmt.Fprintln(a.text, w)
			}
			return err
		}
		printExported(a.text, written)
		return nil
	})
	cmd.AddCommand(list, next, export)
	return cmd
}

// stateWritable reports whether the daemon could write the state file:
// its directory (or the nearest existing parent) and the file itself, when
// present, must be writable.
func stateWritable(path string) error {
	if _, err := os.Lstat(path); err == nil {
		if err := writable(path); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	dir := filepath.Dir(path)
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		if dir == filepath.Dir(dir) {
			break
		}
		dir = filepath.Dir(dir)
	}
	if err := writable(dir); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	return nil
}

// invocation is the command an exported service runs: daemon --once with
// every setting this export was given (absolute paths), and the
// environment variables hab-gc reads that are set now (a service does not
// inherit the shell's environment).
func (a *app) invocation(cmd *cobra.Command, s *schedule.Scheduler, exe string) (schedule.Invocation, error) {
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return schedule.Invocation{}, err
	}
	state, err := filepath.Abs(s.StatePath)
	if err != nil {
		return schedule.Invocation{}, err
	}
	tz, _ := cmd.Flags().GetString("timezone")
	inv := schedule.Invocation{Exe: exe, Args: []string{"daemon", "--once", "--schedules", dir, "--state", state, "--timezone", tz}}
	for _, name := range append([]string{"fs-root", "catch-up-spread"}, storeFlags()...) {
		f := cmd.Flags().Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		v := f.Value.String()
		if name == "fs-root" || name == "config" {
			if v, err = filepath.Abs(v); err != nil {
				return inv, err
			}
		}
		inv.Args = append(inv.Args, "--"+name, v)
	}
	var names []string
	for _, st := range settings() {
		names = append(names, st.env...)
	}
	names = append(names, "HAB_GC_CONFIG", "HAB_BINLINK_DIR", "HAB_GC_MACHINE_ID")
	for _, n := range names {
		if v, ok := a.lookup(n); ok && v != "" {
			inv.Env = append(inv.Env, n+"="+v)
		}
	}
	return inv, nil
}

// writeUnits writes each job's units into out (each through a temporary
// file renamed into place, so a symlink there is replaced, never followed),
// then removes the units an earlier export wrote (they start with
// schedule.UnitMarker) that belong to no job now. It returns the files
// written.
func writeUnits(out string, jobs []schedule.Job, inv schedule.Invocation, loc *time.Location) ([]string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	root, err := safeio.OpenRoot(out)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	keep := map[string]bool{}
	var written []string
	for _, j := range jobs {
		units, err := schedule.SystemdUnits(j, inv, loc)
		if err != nil {
			return written, err
		}
		for _, u := range units {
			if err := writeUnit(root, u); err != nil {
				return written, err
			}
			keep[u.Name] = true
			written = append(written, filepath.Join(out, u.Name))
		}
	}
	entries, err := safeio.ReadDir(out)
	if err != nil {
		return written, err
	}
	for _, e := range entries {
		n := e.Name()
		if keep[n] || !e.Type().IsRegular() || !strings.HasPrefix(n, "hab-gc-") ||
			!(strings.HasSuffix(n, ".timer") || strings.HasSuffix(n, ".service")) {
			continue
		}
		if exportedByUs(root, n) {
			if err := root.Remove(n); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// writeUnit writes u into the directory root through a new temporary
// file (created exclusively: whatever someone planted at any name is never
// opened) and renames it over u.Name (which replaces what is there, never
// writes through it).
func writeUnit(root *os.Root, u schedule.Unit) error {
	f, err := os.CreateTemp(root.Name(), ".hab-gc-export-*")
	if err != nil {
		return err
	}
	tmp := filepath.Base(f.Name())
	_, err = f.WriteString(u.Content)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, u.Name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}

// exportedByUs reports whether a regular file (never a symlink's target)
// starts with schedule.UnitMarker.
func exportedByUs(root *os.Root, name string) bool {
	f, err := safeio.OpenAt(root, name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	buf := make([]byte, len(schedule.UnitMarker))
	_, err = io.ReadFull(f, buf)
	return err == nil && string(buf) == schedule.UnitMarker
}

// machineID is this machine's identity for randomized times:
// HAB_GC_MACHINE_ID when set, else FS_ROOT/etc/machine-id, else the host
// name.
func (a *app) machineID(c *config) (string, error) {
	return a.machineIDAt(c.fsRoot())
}

// machineIDAt is machineID for the FS root root.
func (a *app) machineIDAt(root string) (string, error) {
	if v, ok := a.explicitMachineID(); ok {
		return v, nil
	}
	b, err := safeio.ReadFile(filepath.Join(root, "etc", "machine-id"), 4096, safeio.FollowLinks)
	if id := strings.TrimSpace(string(b)); err == nil && id != "" {
		return id, nil
	}
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "", fmt.Errorf("no machine identity: %s/etc/machine-id is unreadable and the host name unknown: set HAB_GC_MACHINE_ID", root)
	}
	return h, nil
}

// explicitMachineID is HAB_GC_MACHINE_ID when set: it replaces the
// identity a schedule state recorded.
func (a *app) explicitMachineID() (string, bool) {
	v, ok := a.lookup("HAB_GC_MACHINE_ID")
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}

// pressureSpec says when a pressure job runs, for schedule list.
func pressureSpec(j schedule.Job) string {
	if j.Limits == nil {
		return "pressure"
	}
	return fmt.Sprintf("min_free %s, max_free %s", j.Limits.MinFree, j.Limits.MaxFree)
}

// ran counts the outcomes of jobs that ran.
func ran(outs []schedule.RunOutcome) int {
	n := 0
	for _, o := range outs {
		if o.Ran {
			n++
		}
	}
	return n
}

// notInState marks, in schedule list, the NEXT time of a job the state
// file does not hold (schedule.JobStatus.InState), explained once under the
// table by notInStateNote.
const (
	notInState     = "(not in state)"
	notInStateNote = "the state file does not hold this job (deleted or replaced, or no daemon has loaded its definition yet).\n" +
		"A running daemon that loaded it restores it from its memory and runs it at NEXT, and so does the first firing of its\n" +
		"exported timer; otherwise it starts when a daemon next starts or reloads, at its first due time after that."
)

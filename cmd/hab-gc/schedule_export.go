package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/schedule"
)

func (a *app) scheduleExportCmd() *cobra.Command {
	export := readSchedulesCmd("export --format systemd --schedules DIR --out DIR",
		"Write a systemd timer and service per effective job (OnCalendar at the resolved time, Persistent=true)")
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
		s, rejected, err := a.readSchedules(cmd, c)
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
		written, removed, err := schedule.WriteUnits(out, s.ExportJobs(), inv, s.Location)
		if err != nil {
			for _, w := range written {
				fmt.Fprintln(a.text, w)
			}
			return err
		}
		printExported(a.text, written, removed)
		return nil
	})
	return export
}

// invocation is daemon --once with this export's settings (absolute
// paths) and the variables set now: a service inherits no shell's.
func (a *app) invocation(cmd *cobra.Command, s *schedule.Scheduler, exe string) (schedule.Invocation, error) {
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return schedule.Invocation{}, err
	}
	tz, _ := cmd.Flags().GetString("timezone")
	inv := schedule.Invocation{Exe: exe, Args: []string{"daemon", "--once", "--schedules", dir, "--timezone", tz}}
	if !s.StateBesideStores {
		state, err := filepath.Abs(s.StatePath)
		if err != nil {
			return inv, err
		}
		inv.Args = append(inv.Args, "--state", state)
	}
	for _, name := range []string{"fs-root", "catch-up-spread", "config", "target", "lock-timeout"} {
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

// printExported lists the units written, then the systemctl lines that
// stop the removed timers (systemd runs one it loaded until told) and
// start the written ones.
func printExported(w io.Writer, written, removed []string) {
	var timers []string
	for _, f := range written {
		fmt.Fprintln(w, f)
		if strings.HasSuffix(f, ".timer") {
			timers = append(timers, filepath.Base(f))
		}
	}
	var gone []string
	for _, n := range removed {
		if strings.HasSuffix(n, ".timer") {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		fmt.Fprintf(w, "systemctl disable --now %s\n", strings.Join(gone, " "))
	}
	if len(timers) > 0 {
		fmt.Fprintf(w, "systemctl daemon-reload && systemctl enable --now %s\n", strings.Join(timers, " "))
	}
}

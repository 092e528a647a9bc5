package main

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/schedule"
)

func (a *app) scheduleListCmd() *cobra.Command {
	list := readSchedulesCmd("list --schedules DIR",
		"Show each effective job: type, store, spec, resolved cron, owner, members, next and last run")
	list.RunE = a.withConfig(func(cmd *cobra.Command, c *config, _ []string) error {
		s, rejected, err := a.readSchedules(cmd, c)
		if err != nil {
			return err
		}
		for _, path := range statePaths(s) {
			if err := schedule.StateWritable(path); err != nil {
				fmt.Fprintf(a.textErr, "hab-gc: warning: the state file cannot be written, so the daemon cannot record runs: %v\n", err)
			}
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
					Members: st.Members, Next: st.Next.Format(time.RFC3339), Runs: st.Runs, LastErr: st.LastError,
					Timezone: st.Spec.Zone(s.Location).String(), InState: &st.InState}
				if st.LastRun != nil {
					lr := st.LastRun.Start.Format(time.RFC3339)
					j.LastRun, j.Result = &lr, &st.LastRun.Result
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
		if len(sts)+len(s.PressureJobs()) > 0 { // no table without rows
			fmt.Fprintln(tw, "KEY\tTYPE\tSTORE\tSPEC\tCRON\tOWNER\tMEMBERS\tNEXT\tLAST RUN\tRUNS")
		}
		for _, st := range sts {
			last := "never"
			if lr := st.LastRun; lr != nil {
				last = lr.Start.Format(time.RFC3339)
				if lr.Result.Error != "" {
					last += " (failed)"
				} else if !lr.Result.OK {
					last += " (problems)"
				}
			}
			if st.LastError != "" {
				last += " (error: " + st.LastError + ")"
			}
			next := st.Next.Format(time.RFC3339)
			if !st.InState {
				next += " " + notInState
				absent = true
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", st.Key, st.Type, st.Store, st.Spec.Raw, st.Cron, st.Owner,
				strings.Join(st.Members, ","), next, last, st.Runs)
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
	return list
}

func pressureSpec(j schedule.Job) string {
	if j.Limits == nil {
		return "pressure"
	}
	return fmt.Sprintf("min_free %s, max_free %s", j.Limits.MinFree, j.Limits.MaxFree)
}

// notInState marks the NEXT of a job the state file does not hold.
const (
	notInState     = "(not in state)"
	notInStateNote = "the state file does not hold this job (deleted or replaced, or no daemon has loaded its definition yet).\n" +
		"A running daemon that loaded it restores it from its memory and runs it at NEXT, and so does the first firing of its\n" +
		"exported timer; otherwise it starts when a daemon next starts or reloads, at its first due time after that."
)

// statePaths are the state files of s's jobs, sorted.
func statePaths(s *schedule.Scheduler) []string {
	if !s.StateBesideStores {
		return []string{s.StatePath}
	}
	var paths []string
	for _, j := range append(s.Jobs(), s.PressureJobs()...) {
		if p, err := schedule.DefaultStatePath(j.FSRoot); err == nil {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}

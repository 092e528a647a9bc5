package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

func addCacheFlags(cmd *cobra.Command) {
	cmd.Flags().Bool("cache", false, "also clean the artifact cache, FS_ROOT/hab/cache/artifacts: a .hart whose release is not installed or removed by this run goes, except the newest --cache-keep-latest of each origin/name")
	cmd.Flags().String("cache-keep-latest", "", "with --cache: archives of removed or uninstalled releases kept per origin/name, `N` (default 1)")
}

// cacheRun is the artifact cache's part of a run.
type cacheRun struct {
	cache *artifactcache.Cache
	files []artifactcache.File
	outs  map[string]artifactcache.FileOutcome
	note  string // why the cache was not cleaned
	// readErr says why the cache could not be read (a refused or
	// unreadable directory, a failed listing): the run then exits 4.
	readErr string
	// target and window are the plan's scan target and install window,
	// for apply's look for installs begun since the plan.
	target string
	window time.Duration
}

// readError is why the cache could not be read, or "".
func (cr *cacheRun) readError() string {
	if cr == nil {
		return ""
	}
	return cr.readErr
}

// planCache opens and plans the cache when --cache is set (nil
// otherwise). Under disk pressure (underPressure) a release the plan
// removes counts as kept: pressure may keep it, and its archive then
// stays until a later run.
func planCache(ctx context.Context, c *config, plan *retention.Plan, underPressure bool) (*cacheRun, error) {
	on, err := c.boolean("cache")
	if err != nil || !on {
		return nil, err
	}
	keep := artifactcache.DefaultKeepLatest
	if c.isSet("cache_keep_latest") {
		if keep, err = c.count("cache_keep_latest"); err != nil {
			return nil, err
		}
	}
	cache, err := artifactcache.Open(c.fsRoot())
	switch {
	case errors.Is(err, artifactcache.ErrRefused), err != nil && !errors.Is(err, artifactcache.ErrNoCache):
		return &cacheRun{note: err.Error(), readErr: err.Error()}, nil
	case err != nil: // none: nothing to clean
		return &cacheRun{note: err.Error()}, nil
	}
	status := artifactcache.StateOf(plan, underPressure)
	// The run's pins and --only reach the cache (plan.Protects), and an
	// archive counts for the store's target only.
	files, err := cache.Plan(ctx, status, artifactcache.Options{KeepLatest: retention.KeepCount(keep), MinAge: plan.Policy.MinAge, Now: time.Now(),
		Target: plan.Inventory.Target, Protect: plan.Protects})
	if err != nil {
		cache.Close()
		if ctx.Err() != nil {
			return nil, err
		}
		return &cacheRun{note: err.Error(), readErr: err.Error()}, nil
	}
	return &cacheRun{cache: cache, files: files, target: plan.Inventory.Target, window: plan.Inventory.InstallWindow}, nil
}

func (cr *cacheRun) close() {
	if cr != nil && cr.cache != nil {
		cr.cache.Close()
	}
}

// limit applies disk pressure to the cache first (artifactcache.Limit).
func (cr *cacheRun) limit(sp pressure.Space, l pressure.Limits) (int64, error) {
	if cr == nil {
		return 0, nil
	}
	return artifactcache.Limit(cr.files, sp, l)
}

// apply removes the archives to remove, under the store's lock, after
// the releases, judged again then (artifactcache.Recheck): an archive
// whose release the run did not remove after all, or whose release began
// to be installed since the plan, stays.
func (cr *cacheRun) apply(ctx context.Context, store *pkgstore.Store, timeout time.Duration, res *retention.Result) error {
	if cr == nil || cr.cache == nil {
		return nil
	}
	unlock, err := store.Lock(ctx, retention.LockWait(timeout)) // as Apply waits
	if err != nil {
		return fmt.Errorf("artifact cache: %w", err)
	}
	defer unlock()
	artifactcache.Recheck(ctx, store, cr.files, res, pkgstore.Options{Target: cr.target, Now: time.Now(), InstallWindow: cr.window})
	cr.outs = map[string]artifactcache.FileOutcome{}
	for _, o := range cr.cache.Remove(ctx, cr.files) {
		cr.outs[o.File] = o
	}
	return nil
}

// failed counts archives that could not be removed.
func (cr *cacheRun) failed() int {
	n := 0
	if cr != nil {
		for _, o := range cr.outs {
			if o.Status == retention.StatusFailed {
				n++
			}
		}
	}
	return n
}

// cacheReport is one archive in run --json's "cache" list.
type cacheReport struct {
	File    string                     `json:"file"`
	Ident   *string                    `json:"ident"`
	Action  artifactcache.Action       `json:"action"`
	Reasons []retention.Reason         `json:"reasons"`
	Size    int64                      `json:"size"`
	Outcome *artifactcache.FileOutcome `json:"outcome,omitempty"`
}

func (cr *cacheRun) report() []cacheReport {
	if cr == nil {
		return nil
	}
	out := []cacheReport{}
	for _, f := range cr.files {
		r := cacheReport{File: f.File, Action: f.Action, Reasons: f.Reasons, Size: f.Size}
		if f.Ident != nil {
			s := f.Ident.String()
			r.Ident = &s
		}
		if o, ok := cr.outs[f.File]; ok {
			r.Outcome = &o
		}
		out = append(out, r)
	}
	return out
}

// print shows the cache's decisions: removals and what is left alone
// always, kept archives when verbose.
func (cr *cacheRun) print(w io.Writer, verbose bool) {
	if cr == nil {
		return
	}
	fmt.Fprintf(w, "\nArtifact cache (%s):\n", artifactcache.Dir)
	if cr.note != "" {
		fmt.Fprintf(w, "  not cleaned: %s\n", cr.note)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  ACTION\tFILE\tRELEASE\tSIZE\tWHY")
	counts := map[artifactcache.Action]int{}
	var bytes int64
	for _, f := range cr.files {
		counts[f.Action]++
		if f.Action == artifactcache.Keep && !verbose {
			continue
		}
		action := string(f.Action)
		if o, ok := cr.outs[f.File]; ok {
			action = string(o.Status)
			if o.Status == retention.StatusRemoved {
				bytes += o.Bytes
			}
		} else if f.Action == artifactcache.Remove {
			bytes += f.Size
		}
		ident := "-"
		if f.Ident != nil {
			ident = f.Ident.String()
		}
		why := make([]string, 0, len(f.Reasons))
		for _, r := range f.Reasons {
			why = append(why, r.Text)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", action, f.File, ident, humanBytes(f.Size), strings.Join(why, "; "))
	}
	tw.Flush()
	fmt.Fprintf(w, "  %d archive(s): %d kept, %d to remove (%s), %d left alone.\n", len(cr.files), counts[artifactcache.Keep], counts[artifactcache.Remove], humanBytes(bytes), counts[artifactcache.Leave])
}

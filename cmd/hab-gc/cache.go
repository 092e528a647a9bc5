package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/prune"
	"github.com/hab-gc/hab-gc/retention"
)

func addCacheFlags(cmd *cobra.Command) {
	cmd.Flags().Bool("cache", false, "also clean the artifact cache, FS_ROOT/hab/cache/artifacts: a .hart whose release is not installed or removed by this run goes, except the newest --cache-keep-latest of each origin/name")
	cmd.Flags().String("cache-keep-latest", "", "with --cache: archives of removed or uninstalled releases kept per origin/name, `N` (default 1)")
}

// cacheOptions are nil without --cache.
func (c *config) cacheOptions() (*artifactcache.Options, error) {
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
	return &artifactcache.Options{KeepLatest: retention.KeepCount(keep)}, nil
}

// cacheRun is the artifact cache's part of a run, as shown.
type cacheRun struct {
	files   []artifactcache.File
	outs    map[string]artifactcache.FileOutcome
	note    string // why the cache was not cleaned
	readErr string // why it could not be read: exit 4
}

func newCacheRun(out *prune.Outcome) *cacheRun {
	cr := &cacheRun{files: out.Cache}
	if out.CacheErr != nil {
		cr.note = out.CacheErr.Error()
		if out.CacheUnreadable() {
			cr.readErr = cr.note
		}
	}
	if out.CacheDone != nil {
		cr.outs = map[string]artifactcache.FileOutcome{}
		for _, o := range out.CacheDone {
			cr.outs[o.File] = o
		}
	}
	return cr
}

func (cr *cacheRun) readError() string {
	if cr == nil {
		return ""
	}
	return cr.readErr
}

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

// print shows the cache's decisions; kept archives only when verbose.
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

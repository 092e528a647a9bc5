package main

import (
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/docs"
	"github.com/hab-gc/hab-gc/metrics"
	"github.com/hab-gc/hab-gc/watch"
)

// commandsWithFlag are the top-level commands (daemon, run, watch...) that
// take --flag, sorted.
func commandsWithFlag(root *cobra.Command, flag string) []string {
	var out []string
	for _, c := range root.Commands() {
		if c.Flags().Lookup(flag) != nil && c.PersistentFlags().Lookup(flag) == nil && root.PersistentFlags().Lookup(flag) == nil {
			out = append(out, c.Name())
		}
	}
	sort.Strings(out)
	return out
}

// The pages are checked against the code, not only run.
// In docs/configuration.md's table, a setting's flag column that names the
// commands taking it, "--cache-keep-latest N (run)", names exactly those
// that have the flag.
func TestConfigurationTableNamesTheCommandsOfEachFlag(t *testing.T) {
	root := newRootCmd(io.Discard, io.Discard, noEnv)
	page, _ := docs.Lookup("configuration")
	rows := map[string]string{}
	for _, l := range strings.Split(page.Markdown, "\n") {
		cells := strings.Split(l, "|")
		if len(cells) > 3 {
			rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[2])
		}
	}
	names := map[string]bool{}
	for _, c := range root.Commands() {
		names[c.Name()] = true
	}
	for _, s := range settings() {
		cell, ok := rows[s.key]
		if !ok {
			t.Errorf("configuration.md has no row for the setting %s", s.key)
			continue
		}
		if !strings.Contains(cell, "--"+s.flag) {
			t.Errorf("configuration.md: %s's flag column %q does not name --%s", s.key, cell, s.flag)
		}
		m := regexp.MustCompile(`\(([^)]*)\)\s*$`).FindStringSubmatch(cell)
		if m == nil {
			continue
		}
		for _, part := range strings.Split(m[1], ";") {
			var listed []string
			for _, w := range strings.Split(part, ",") {
				listed = append(listed, strings.Trim(strings.TrimSpace(w), "`"))
			}
			if !slices.ContainsFunc(listed, func(n string) bool { return names[n] }) {
				continue // "(repeatable)": not a list of commands
			}
			sort.Strings(listed)
			if have := commandsWithFlag(root, s.flag); !slices.Equal(listed, have) {
				t.Errorf("configuration.md: --%s is listed for %v; the commands that take it: %v", s.flag, listed, have)
			}
		}
	}
}

// docs/metrics.md names every command that takes
// --metrics-file, every run type the code writes (prune, check, watch), and
// its alert on a failed run covers every type that removes releases.
func TestMetricsPageMatchesTheCode(t *testing.T) {
	root := newRootCmd(io.Discard, io.Discard, noEnv)
	page, _ := docs.Lookup("metrics")
	first, _, _ := strings.Cut(page.Body(), "take `--metrics-file")
	var listed []string
	for _, m := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(first, -1) {
		listed = append(listed, m[1])
	}
	sort.Strings(listed)
	if have := commandsWithFlag(root, "metrics-file"); !slices.Equal(listed, have) {
		t.Errorf("metrics.md: --metrics-file is said to be taken by %v; the commands that take it: %v", listed, have)
	}
	types := regexp.MustCompile("run series have `type` \\(([^)]*)\\)").FindStringSubmatch(strings.Join(strings.Fields(page.Body()), " "))
	if types == nil {
		t.Fatal("metrics.md does not list the run types (\"run series have `type` (...)\")")
	}
	for _, typ := range []string{metrics.TypePrune, metrics.TypeCheck, watch.Job} {
		if !strings.Contains(types[1], "`"+typ+"`") {
			t.Errorf("metrics.md: run type %q is written by the code but not listed: %s", typ, types[1])
		}
		if typ == metrics.TypeCheck {
			continue // a check removes nothing
		}
		if !regexp.MustCompile(`hab_gc_last_run_success\{type=~?"[^"]*\b` + typ + `\b`).MatchString(page.Markdown) {
			t.Errorf("metrics.md: no alert on a failed run of type %q", typ)
		}
	}
}

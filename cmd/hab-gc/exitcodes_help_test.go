package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/docs"
)

// TestExitCodesHelpMatchesPage: --help's exit codes, the exit
// codes page and the code's constants list the same codes, and every
// flag and HAB_GC_ variable the page names for a code, --help names for
// it too (the watchdog's HAB_GC_STOP_GRACE and --allow-keep-none were
// on the page only).
func TestExitCodesHelpMatchesPage(t *testing.T) {
	consts := []int{exitOK, exitError, exitUsage, exitRefused, exitPartial, exitLocked, exitProblems, exitInterrupted, exitNotEnough}
	help := map[int]string{}
	code := -1
	for _, l := range strings.Split(exitCodesHelp, "\n")[1:] {
		f := strings.Fields(l)
		if n, err := strconv.Atoi(f[0]); err == nil && strings.HasPrefix(l, "  "+f[0]+"  ") {
			code = n
			l = strings.Join(f[1:], " ")
		}
		help[code] += " " + strings.TrimSpace(l)
	}
	topic, ok := docs.Lookup("exit-codes")
	if !ok {
		t.Fatal("no exit-codes page")
	}
	page := map[int]string{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d) \| (.*) \|$`).FindAllStringSubmatch(topic.Body(), -1) {
		n, _ := strconv.Atoi(m[1])
		page[n] = m[2]
	}
	var helpCodes, pageCodes []int
	for c := range help {
		helpCodes = append(helpCodes, c)
	}
	for c := range page {
		pageCodes = append(pageCodes, c)
	}
	slices.Sort(helpCodes)
	slices.Sort(pageCodes)
	if !slices.Equal(helpCodes, consts) || !slices.Equal(pageCodes, consts) {
		t.Fatalf("codes: constants %v, --help %v, docs/exit-codes.md %v", consts, helpCodes, pageCodes)
	}
	// Who may remove is decided by the store's lock and ownership, not
	// by being root.
	for _, text := range []string{help[exitRefused], page[exitRefused]} {
		if strings.Contains(text, "needs root") || !strings.Contains(text, "lock") {
			t.Errorf("exit 3 says removing needs root, not the store's lock: %s", text)
		}
	}
	names := regexp.MustCompile(`--[a-z][a-z-]+|HAB_GC_[A-Z_]+`)
	for _, c := range consts {
		for _, n := range names.FindAllString(page[c], -1) {
			if !strings.Contains(help[c], n) {
				t.Errorf("exit %d: docs/exit-codes.md names %s, --help's exit codes do not", c, n)
			}
		}
	}
}

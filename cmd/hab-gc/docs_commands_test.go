package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// docCommand is one command line of a ```sh block of the README or docs/.
type docCommand struct {
	where string // file:line
	line  string // as written, prompt and comment removed
	// continued: the line as written ends in a backslash or a pipe, so
	// the next one is part of it.
	continued bool
}

// docNotRun are the command lines of the docs that this test does not run,
// each with the reason; every other hab-gc line in a ```sh block runs.
var docNotRun = map[*regexp.Regexp]string{
	regexp.MustCompile(`^go (install|build|test)\b`): "builds or tests the module itself (the README's set-up; CI runs go test)",
	regexp.MustCompile(`^(\w+=\S* )*hab \w+`):        "a Habitat command: needs Habitat installed",
	regexp.MustCompile(`^hab-gc (watch|lease)\b`):    "runs until stopped, or wraps a Habitat install; covered by the watch and lease tests",
	regexp.MustCompile(`--sup-gateway`):              "needs a running Supervisor's gateway; covered by the gateway tests",
}

// docAllowedExit lists commands whose documented outcome is not always 0
// on the test's store.
var docAllowedExit = []struct {
	re    *regexp.Regexp
	codes []int
	why   string
}{
	{regexp.MustCompile(`--min-free`), []int{0, 8}, "8 when the test's file system has less free than asked (documented: not enough space)"},
}

// docsCommandLines returns every command line in the ```sh blocks of the
// README and docs/*.md, grouped by block (lines of a block share shell
// variables, as a reader typing them would).
func docsCommandLines(t *testing.T) [][]docCommand {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	sort.Strings(files)
	files = append([]string{"../../README.md"}, files...)
	var blocks [][]docCommand
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cur []docCommand
		in, prompted := false, false
		for i, l := range strings.Split(string(b), "\n") {
			tl := strings.TrimSpace(l)
			if strings.HasPrefix(tl, "```") {
				if in && len(cur) > 0 {
					blocks = append(blocks, cur)
				}
				cur, prompted = nil, false
				in = !in && (tl == "```sh" || tl == "```bash" || tl == "```console")
				continue
			}
			if !in {
				continue
			}
			// In a block with "$ " prompts, only prompted lines are
			// commands, with the lines they continue.
			continuing := len(cur) > 0 && cur[len(cur)-1].continued
			if strings.HasPrefix(tl, "$ ") {
				prompted = true
				tl = strings.TrimPrefix(tl, "$ ")
			} else if prompted && !continuing {
				continue
			}
			if c, _, ok := strings.Cut(tl, " # "); ok {
				tl = strings.TrimSpace(c)
			}
			if tl == "" || strings.HasPrefix(tl, "#") {
				continue
			}
			// A line continued (a trailing backslash, or a pipe to a
			// consumer on the next line) joins the command before it.
			if n := len(cur); n > 0 && cur[n-1].continued {
				cur[n-1].line += " " + tl
				cur[n-1].continued = strings.HasSuffix(tl, "\\") || strings.HasSuffix(tl, "|")
				cur[n-1].line = strings.TrimSuffix(cur[n-1].line, "\\")
				continue
			}
			cont := strings.HasSuffix(tl, "\\") || strings.HasSuffix(tl, "|")
			tl = strings.TrimSpace(strings.TrimSuffix(tl, "\\"))
			cur = append(cur, docCommand{continued: cont, where: strings.TrimPrefix(f, "../../") + ":" + strconv.Itoa(i+1), line: tl})
		}
	}
	return blocks
}

// sandboxPaths rewrites the absolute paths of a command line (/etc, /var,
// /usr, /opt, /run, /tmp, /hab) into root, creating their parent
// directories, so that no documented command writes outside the test.
var absPath = regexp.MustCompile(`(^|[\s='"])/(etc|var|usr|opt|run|tmp|hab)(/[^\s'"|>]*)?`)

var dirFlag = regexp.MustCompile(`--(?:schedules|out)[ =](\S+)`)

func sandboxPaths(line, root string) string {
	return absPath.ReplaceAllStringFunc(line, func(m string) string {
		lead := ""
		if m[0] != '/' {
			lead, m = m[:1], m[1:]
		}
		p := filepath.Join(root, m)
		os.MkdirAll(filepath.Dir(p), 0o755)
		return lead + p
	})
}

// TestDocsCommands runs every command shown in the README and docs/ as
// written (as cue's script tests run its docs' examples), against copies of
// the demo store: `go run ./cmd/hab-gc` and `hab-gc` are this build;
// commands without --fs-root see the store through FS_ROOT; absolute paths
// are moved into the test's directory; a pipe's consumer is dropped. Each
// must exit 0, or a code listed in docAllowedExit; what cannot run in a
// test is listed, with the reason, in docNotRun.
func TestDocsCommands(t *testing.T) {
	t.Parallel()
	testtool.Need(t, "sh", "dash") // the documented commands are a reader's shell lines
	if _, err := exec.LookPath("hab-gc"); err != nil {
		t.Fatal("hab-gc is not on PATH (TestMain puts this test binary there):", err)
	}
	var ran atomic.Int64
	// Each block runs in its own sandbox, so the blocks run in parallel;
	// the group returns when all have.
	t.Run("blocks", func(t *testing.T) {
		for _, block := range docsCommandLines(t) {
			t.Run(block[0].where, func(t *testing.T) {
				t.Parallel()
				runDocsBlock(t, block, &ran)
			})
		}
	})
	if n := ran.Load(); n < 20 && !t.Failed() {
		t.Fatalf("only %d documented commands ran: the extraction broke", n)
	}
}

// runDocsBlock runs one block's commands in a sandbox of its own: copies
// of the demo store as the repository's testdata/demo and as FS_ROOT.
func runDocsBlock(t *testing.T, block []docCommand, ran *atomic.Int64) {
	root := testtool.TempDir(t)
	work := filepath.Join(root, "work")
	storetest.Demo(storetest.At(t, filepath.Join(work, "testdata", "demo")))
	fsroot := filepath.Join(root, "fsroot")
	storetest.Demo(storetest.At(t, fsroot))
	addDocsPackages(t, work, fsroot)
	writeDocsFiles(t, root, fsroot)
	var script strings.Builder
	var run []docCommand
	for _, c := range block {
		line := strings.Replace(c.line, "go run ./cmd/hab-gc", "hab-gc", 1)
		if reason := notRun(line); reason != "" {
			t.Logf("%s: not run (%s): %s", c.where, reason, c.line)
			continue
		}
		if !strings.Contains(line, "hab-gc") && !strings.Contains(line, "=") {
			t.Fatalf("%s: a command this test does not know: %s (run it or list it in docNotRun)", c.where, c.line)
		}
		if i := strings.Index(line, " | "); i > 0 {
			line = line[:i] // the consumer (dot, jq) is not under test
		}
		line = sandboxPaths(line, root)
		for _, m := range dirFlag.FindAllStringSubmatch(line, -1) {
			os.MkdirAll(m[1], 0o755) // as on the operator's machine
		}
		script.WriteString(line + "\necho \"@@exit $? " + strconv.Itoa(len(run)) + "\"\n")
		run = append(run, c)
	}
	if len(run) == 0 {
		return
	}
	cmd := exec.Command("sh", "-c", script.String())
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "FS_ROOT="+fsroot, "HOME="+root, "TMPDIR="+root, "HAB_GC_CONFIG=", "CI=")
	out, _ := cmd.CombinedOutput()
	codes := map[int]int{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var code, idx int
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "@@exit" {
			code, _ = strconv.Atoi(f[1])
			idx, _ = strconv.Atoi(f[2])
			codes[idx] = code
		}
	}
	for i, c := range run {
		code, ok := codes[i]
		if !ok {
			t.Errorf("%s: did not run: %s\n%s", c.where, c.line, out)
			continue
		}
		ran.Add(1)
		if !exitAllowed(c.line, code) {
			t.Errorf("%s: exit %d: %s\n%s", c.where, code, c.line, out)
		}
	}
}

func notRun(line string) string {
	if strings.HasPrefix(line, "hab-gc daemon") && !strings.Contains(line, "--once") {
		return "runs until SIGINT/SIGTERM; the daemon tests start and stop it"
	}
	for re, why := range docNotRun {
		if why != "" && re.MatchString(line) {
			return why
		}
	}
	return ""
}

func exitAllowed(line string, code int) bool {
	if code == 0 {
		return true
	}
	for _, a := range docAllowedExit {
		if a.re.MatchString(line) {
			for _, c := range a.codes {
				if c == code {
					return true
				}
			}
		}
	}
	return false
}

// addDocsPackages adds to both stores the packages the docs' examples name
// that the demo store lacks (a PostgreSQL 11 and 12, pinned in examples),
// installed long ago, and the schedules directory the scheduling examples
// read.
func addDocsPackages(t *testing.T, roots ...string) {
	old := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, r := range roots {
		b := storetest.At(t, r)
		for _, id := range []string{"core/postgresql/11.2/20210101000000", "core/postgresql/11.9/20210601000000", "core/postgresql/12.1/20210701000000"} {
			b.Add(storetest.Release{Ident: id, ModTime: old, Files: map[string]string{"bin/postgres": "pg\n"}})
		}
	}
}

// writeDocsFiles writes into root every TOML block of the docs whose first
// line names where it goes under /etc (`# /etc/hab-gc/schedules/team-a.toml`),
// so that the commands that read them read the docs' own examples; their
// store (`fs_root = "/"`) is fsroot.
func writeDocsFiles(t *testing.T, root, fsroot string) {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	for _, f := range append(files, "../../README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range tomlBlock.FindAllStringSubmatch(string(b), -1) {
			p := filepath.Join(root, m[1])
			os.MkdirAll(filepath.Dir(p), 0o755)
			body := strings.ReplaceAll(m[2], `fs_root = "/"`, "fs_root = "+strconv.Quote(fsroot))
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

var tomlBlock = regexp.MustCompile("(?ms)^ *```toml\n *# (/etc/[^ \t\n]+[.]toml)\n(.*?)^ *```")

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mailgun/raymond/v2"
	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

// habitatDir is the plan's directory.
func habitatDir() string { return filepath.Join("..", "..", "habitat") }

// habitatHelpers are the Habitat template helpers the templates use, as
// the Supervisor defines them: toToml and toJson serialize a value
// (serde), never HTML-escaped.
func habitatHelpers() map[string]any {
	return map[string]any{
		"toToml": func(v any) raymond.SafeString {
			b, err := toml.Marshal(v)
			if err != nil {
				panic(err)
			}
			return raymond.SafeString(b)
		},
		"toJson": func(v any) raymond.SafeString {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				panic(err)
			}
			return raymond.SafeString(strings.TrimSuffix(buf.String(), "\n"))
		},
	}
}

// render renders a template as the Supervisor does: Habitat's Handlebars
// never escapes HTML, so every plain {{expr}} is rendered as {{{expr}}}.
func render(t *testing.T, path string, ctx map[string]any) string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	plain := regexp.MustCompile(`\{\{([^#/!{^~>][^}]*)\}\}`)
	tpl, err := raymond.Parse(plain.ReplaceAllString(string(src), "{{{$1}}}"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tpl.RegisterHelpers(habitatHelpers())
	out, err := tpl.Exec(ctx)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// merge overlays a user's config on the defaults, table by table, as the
// Supervisor merges `hab config apply` over default.toml.
func merge(base, over map[string]any) map[string]any {
	out := maps.Clone(base)
	for k, v := range over {
		if bm, ok := out[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				out[k] = merge(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

func readTOML(t *testing.T, data string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := toml.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("%v in\n%s", err, data)
	}
	return m
}

// TestHabitatTemplates renders every template of the plan with
// default.toml and with a user's override, and loads the results with
// hab-gc's own loaders: the config file as the CLI reads it, the schedule
// as the daemon reads it. The run hook passes shellcheck and starts the
// daemon with them.
func TestHabitatTemplates(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(habitatDir(), "default.toml"))
	if err != nil {
		t.Fatal(err)
	}
	defaults := readTOML(t, string(raw))
	if got := defaults["config"].(map[string]any)["fs_root"]; got != "/" {
		t.Fatalf("default fs_root %v, want /", got)
	}
	b := storetest.New(t)
	b.Pkg("core/a/1/20200101000000").Pkg("core/a/2/20200101000000")
	// The store must exist for the schedule to load: both cases point
	// fs_root at a temporary one (the default is "/", checked above).
	root := fmt.Sprintf("[config]\nfs_root = %q\n", b.Root)
	type want struct {
		lockTimeout         time.Duration
		selfKeep            int
		checkSpec, pruneSpc string
		keep                int
		exclude             []string
		minAge              time.Duration
		args                []string // in the hook's command line
	}
	for _, tc := range []struct {
		name, override string
		want           want
		start          bool
	}{
		{"defaults", root, want{30 * time.Second, 0, "@daily-random", "@weekly-random", 3, nil, time.Hour,
			[]string{"--timezone \"UTC\"", "--log-format \"json\"", "--metrics-listen \"0.0.0.0:9725\""}}, false},
		{"override", root + `lock_timeout = "2m"
self_keep_latest = 2
[schedule.prune]
schedule = "30 3 * * *"
keep_latest = 5
exclude = ["core/postgresql@>=11 <12", "acme/legacy-app"]
min_age = "2h"
[daemon]
timezone = "Europe/Berlin"
metrics_listen = "127.0.0.1:0"
metrics_file = "/var/lib/node_exporter/textfile/hab_gc.prom"
`, want{2 * time.Minute, 2, "@daily-random", "30 3 * * *", 5, []string{"acme/legacy-app", "core/postgresql@>=11 <12"}, 2 * time.Hour,
			[]string{"--timezone \"Europe/Berlin\"", "--metrics-listen \"127.0.0.1:0\"", "--metrics-file \"/var/lib/node_exporter/textfile/hab_gc.prom\""}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := merge(defaults, readTOML(t, tc.override))
			svc := testtool.TempDir(t)
			pkgPath := filepath.Join(testtool.TempDir(t), "pkg")
			ctx := map[string]any{
				"cfg": cfg,
				"pkg": map[string]any{"name": "hab-gc", "path": pkgPath, "svc_config_path": filepath.Join(svc, "config"),
					"svc_var_path": filepath.Join(svc, "var"), "svc_data_path": filepath.Join(svc, "data")},
				"sys": map[string]any{"ip": "127.0.0.1", "hostname": "test"},
			}
			cfgDir := filepath.Join(svc, "config")
			os.MkdirAll(cfgDir, 0o755)
			templates, _ := filepath.Glob(filepath.Join(habitatDir(), "config", "*"))
			if len(templates) != 2 {
				t.Fatalf("templates %v", templates)
			}
			for _, tp := range templates {
				out := render(t, tp, ctx)
				if err := os.WriteFile(filepath.Join(cfgDir, filepath.Base(tp)), []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}

			// The config file, as `hab-gc --config FILE` reads it.
			cmd := &cobra.Command{Use: "run"}
			addRootFlags(cmd.Flags())
			addPolicyFlags(cmd.Flags())
			cmd.Flags().Set("config", filepath.Join(cfgDir, "hab-gc.toml"))
			c, err := loadConfig(cmd, func(string) (string, bool) { return "", false })
			if err != nil {
				t.Fatalf("hab-gc.toml rejected: %v", err)
			}
			if c.fsRoot() != b.Root {
				t.Errorf("fs_root %q, want %q", c.fsRoot(), b.Root)
			}
			if d, err := c.lockTimeout(); err != nil || d != tc.want.lockTimeout {
				t.Errorf("lock_timeout %v %v, want %v", d, err, tc.want.lockTimeout)
			}
			pol, err := c.policy(false)
			if err != nil || pol.SelfKeepLatest != tc.want.selfKeep {
				t.Errorf("self_keep_latest %d %v, want %d", pol.SelfKeepLatest, err, tc.want.selfKeep)
			}

			// The schedule, as the daemon reads it.
			file := filepath.Join(cfgDir, "schedule.toml")
			data, _ := os.ReadFile(file)
			def, err := schedule.ParseDefinition(file, data)
			if err != nil {
				t.Fatalf("schedule rejected: %v\n%s", err, data)
			}
			if def.Name != "supervisor" || def.FSRoot != b.Root || len(def.Jobs) != 2 {
				t.Fatalf("definition %+v", def)
			}
			for _, j := range def.Jobs {
				switch j.Type {
				case schedule.Check:
					if j.Spec.Raw != tc.want.checkSpec {
						t.Errorf("check %q, want %q", j.Spec.Raw, tc.want.checkSpec)
					}
				case schedule.Prune:
					p := j.Params
					if j.Spec.Raw != tc.want.pruneSpc || p.KeepLatest != tc.want.keep || !slices.Equal(p.Exclude, tc.want.exclude) || p.MinAge != tc.want.minAge {
						t.Errorf("prune %q %+v, want %+v", j.Spec.Raw, p, tc.want)
					}
				}
			}

			// The run hook.
			hook := filepath.Join(svc, "hooks", "run")
			os.MkdirAll(filepath.Dir(hook), 0o755)
			script := render(t, filepath.Join(habitatDir(), "hooks", "run"), ctx)
			if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, a := range tc.want.args {
				if !strings.Contains(script, a) {
					t.Errorf("the hook lacks %s:\n%s", a, script)
				}
			}
			sh := testtool.Need(t, "sh", "dash") // the hook is a shell script
			if out, err := exec.Command(sh, "-n", hook).CombinedOutput(); err != nil {
				t.Fatalf("sh -n: %v: %s", err, out)
			}
			t.Run("shellcheck", func(t *testing.T) {
				sc := testtool.Need(t, "shellcheck", "shellcheck")
				if out, err := exec.Command(sc, hook).CombinedOutput(); err != nil {
					t.Errorf("shellcheck: %v\n%s\n%s", err, out, script)
				}
			})
			if tc.start {
				startHook(t, hook, pkgPath, svc)
			}
		})
	}
}

// startHook runs the rendered run hook with this test binary as the
// package's bin/hab-gc, until the daemon reports it started with both
// jobs of the schedule; then stops it.
func startHook(t *testing.T, hook, pkgPath, svc string) {
	exe := testtool.Executable(t)
	os.MkdirAll(filepath.Join(pkgPath, "bin"), 0o755)
	if err := os.Symlink(exe, filepath.Join(pkgPath, "bin", "hab-gc")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hook)
	out, err := cmd.StdoutPipe() // the hook sends stderr to stdout, as the Supervisor reads it
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	started := make(chan map[string]any, 1)
	var lines []string
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == "hab-gc daemon started" {
				started <- rec
			}
		}
		close(started)
	}()
	select {
	case rec, ok := <-started:
		if !ok {
			cmd.Wait()
			t.Fatalf("the daemon did not start:\n%s", strings.Join(lines, "\n"))
		}
		if rec["jobs"] != float64(2) || !strings.HasPrefix(rec["schedules"].(string), filepath.Join(svc, "var")) {
			t.Errorf("daemon started with %v", rec)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the daemon did not start in 60s")
	}
	if err := testtool.Terminate(t, cmd); err != nil {
		t.Errorf("daemon exit: %v", err)
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/metrics"
)

// TestDaemonServesMetrics runs the daemon (this test binary as hab-gc) with
// --metrics-listen 127.0.0.1:0, lets it run an overdue prune, and reads
// /metrics over HTTP with the client library's parser.
func TestDaemonServesMetrics(t *testing.T) {
	t.Parallel()
	exe := testtool.Executable(t)
	b := hostStore(t)
	b.Pkg("core/a/1/20200101000000").Pkg("core/a/2/20200101000000")
	work := testtool.TempDir(t)
	sched := filepath.Join(work, "schedules")
	schedtest.Write(t, sched, "p", schedtest.Prune(b.Root, "@daily-random"))
	state := filepath.Join(work, "state.json")
	base := []string{"hab-gc", "daemon", "--schedules", sched, "--state", state, "--log-format", "json", "--catch-up-spread", "0"}
	// First sight registers the job; three days later it is overdue.
	first := &exec.Cmd{Path: exe, Args: append(base, "--once", "--now", "2026-06-01T00:00:00Z")}
	if out, err := first.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	textfile := filepath.Join(work, "hab_gc.prom")
	cmd := &exec.Cmd{Path: exe, Args: append(base, "--now", "2026-06-04T00:00:00Z", "--metrics-listen", "127.0.0.1:0", "--metrics-file", textfile)}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	addr, ran := make(chan string, 1), make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) != nil {
				continue
			}
			switch rec["msg"] {
			case "serving metrics":
				addr <- rec["addr"].(string)
			case "job ran":
				close(ran)
			}
		}
	}()
	var a string
	for _, ch := range []any{addr, ran} {
		select {
		case v := <-addr:
			a = v
		case <-ran:
		case <-time.After(60 * time.Second):
			t.Fatalf("the daemon did not serve metrics and run its job (waiting on %T)", ch)
		}
	}
	if !strings.HasPrefix(a, "127.0.0.1:") {
		t.Fatalf("listening on %q", a)
	}
	resp, err := http.Get("http://" + a + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("%v in\n%s", err, body)
	}
	store := metrics.StorePath(b.Root)
	get := func(name string, labels ...string) float64 {
		t.Helper()
		for _, m := range fams[name].GetMetric() {
			if hasLabels(m, append(labels, "store", store)...) {
				if m.Counter != nil {
					return m.GetCounter().GetValue()
				}
				return m.GetGauge().GetValue()
			}
		}
		t.Fatalf("no %s%v in\n%s", name, labels, body)
		return 0
	}
	if v := get("hab_gc_removed_releases_total"); v != 1 {
		t.Errorf("removed %v, want 1", v)
	}
	if v := get("hab_gc_last_run_success", "type", "prune"); v != 1 {
		t.Errorf("last prune success %v", v)
	}
	if v := get("hab_gc_releases", "action", "keep"); v != 1 {
		t.Errorf("kept %v", v)
	}
	if v := get("hab_gc_filesystem_free_bytes"); v <= 0 {
		t.Errorf("free bytes %v", v)
	}
	if _, err := os.Stat(textfile); err != nil {
		t.Errorf("the textfile was not written: %v", err)
	}
	if err := testtool.Terminate(t, cmd); err != nil {
		t.Fatalf("daemon exit: %v", err)
	}
}

func hasLabels(m *dto.Metric, kv ...string) bool {
	have := map[string]string{}
	for _, lp := range m.GetLabel() {
		have[lp.GetName()] = lp.GetValue()
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if have[kv[i]] != kv[i+1] {
			return false
		}
	}
	return true
}

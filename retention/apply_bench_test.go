package retention_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// BenchmarkApplyVsRmRf removes the same release directories of a generated
// store twice per iteration, side by side: once with Apply (lock, rescan,
// revalidation, hide, re-check, delete, prune) and once with `rm -rf` of
// the release directories. It reports both, per run and per release, and
// their ratio (target: apply/rm-rf <= 1.25), and Apply's time by phase
// (ms, as Apply names its phases: locking and rescanning, which includes
// the revalidation, then hiding, re-checking and deleting). Apply and
// rm -rf alternate which runs first from one iteration to the next; the
// smallest and the median of the iterations' ratios are reported too.
//
// Two shapes:
//   - 115x300files: 200 releases of 300 payload files (2,000 bytes each),
//     115 of them removed: the cost of deleting files dominates.
//   - 5000x6files: 6,700 releases of the five metadata files and one small
//     payload file (in a subdirectory), about 5,000 removed: Apply's cost per release (two renames,
//     their directory fsyncs, the checks before each step, pruning) shows
//     against `rm -rf`'s few system calls per release.
//
// Each store is generated once per run of the benchmark; every iteration
// copies it afresh (outside the timer) to one directory for Apply and one
// for `rm -rf`, and syncs, so that no earlier write is flushed in the
// timed part.
func BenchmarkApplyVsRmRf(b *testing.B) {
	cases := []struct {
		name string
		cfg  storetest.GenConfig
	}{
		{"115x300files", storetest.GenConfig{Packages: 40, ReleasesPerPackage: 5, FilesPerRelease: 300, PayloadBytes: 2000, Seed: 3}},
		{"5000x6files", storetest.GenConfig{Packages: 1340, ReleasesPerPackage: 5, FilesPerRelease: 1, PayloadBytes: 4000, Seed: 3}},
	}
	// Each shape is generated once, when first needed, under the parent
	// benchmark's temporary directory (b.Run calls a sub-benchmark's
	// function more than once: b.N 1, then the real count).
	templates := map[string]string{}
	for _, c := range cases {
		b.Run(c.name, func(sb *testing.B) {
			dir, ok := templates[c.name]
			if !ok {
				dir = filepath.Join(b.TempDir(), c.name)
				if _, err := storetest.Generate(dir, c.cfg); err != nil {
					sb.Fatal(err)
				}
				templates[c.name] = dir
			}
			benchApplyVsRmRf(sb, dir)
		})
	}
}

func benchApplyVsRmRf(b *testing.B, template string) {
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	var applyNs, rmNs int64
	phaseNs := map[retention.Phase]int64{}
	removed := 0
	var ratios []float64 // apply/rm-rf of each iteration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		a, r := b.TempDir(), b.TempDir()
		for _, dst := range []string{a, r} {
			if out, err := exec.Command("cp", "-a", template+"/.", dst).CombinedOutput(); err != nil {
				b.Fatalf("%v %s", err, out)
			}
		}
		exec.Command("sync").Run()
		store, err := pkgstore.Open(a)
		if err != nil {
			b.Fatal(err)
		}
		inv, err := store.Scan(context.Background(), pkgstore.Options{Target: "x86_64-linux"})
		if err != nil {
			b.Fatal(err)
		}
		plan, err := retention.Compute(inv, pol, nil, time.Now(), nil)
		if err != nil {
			b.Fatal(err)
		}
		var dirs []string
		for _, d := range plan.Removals() {
			dirs = append(dirs, filepath.Join(r, "hab", "pkgs", filepath.FromSlash(d.Release.Path())))
		}
		removed = len(dirs)
		// Phase times: from the start of one phase to the start of the
		// next (or the end of Apply).
		var cur retention.Phase
		var curStart time.Time
		onPhase := func(e retention.PhaseEvent) {
			if e.Done != 0 || e.Phase == cur {
				return
			}
			now := time.Now()
			if cur != "" {
				phaseNs[cur] += now.Sub(curStart).Nanoseconds()
			}
			cur, curStart = e.Phase, now
		}
		b.StartTimer()

		// Apply and rm -rf alternate which goes first, so that neither
		// always meets the other's writeback.
		var itApply, itRm int64
		runApply := func() {
			start := time.Now()
			res, err := plan.Apply(context.Background(), store, retention.ApplyOptions{Settle: -1, OnPhase: onPhase})
			end := time.Now()
			itApply = end.Sub(start).Nanoseconds()
			if err != nil || res.Removed != len(dirs) {
				b.Fatalf("apply: %v, removed %d of %d", err, res.Removed, len(dirs))
			}
			phaseNs[cur] += end.Sub(curStart).Nanoseconds()
		}
		runRm := func() {
			start := time.Now()
			if out, err := exec.Command("rm", append([]string{"-rf"}, dirs...)...).CombinedOutput(); err != nil {
				b.Fatalf("rm: %v %s", err, out)
			}
			itRm = time.Since(start).Nanoseconds()
		}
		if i%2 == 0 {
			runApply()
			runRm()
		} else {
			runRm()
			runApply()
		}
		applyNs += itApply
		rmNs += itRm
		ratios = append(ratios, float64(itApply)/float64(itRm))

		b.StopTimer()
		store.Close()
		for _, d := range dirs[:1] {
			if _, err := os.Stat(d); err == nil {
				b.Fatal("rm -rf left a directory")
			}
		}
		os.RemoveAll(a)
		os.RemoveAll(r)
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(float64(applyNs)/n/1e6, "apply-ms")
	b.ReportMetric(float64(rmNs)/n/1e6, "rm-rf-ms")
	b.ReportMetric(float64(applyNs)/n/float64(removed), "apply-ns/release")
	b.ReportMetric(float64(rmNs)/n/float64(removed), "rm-rf-ns/release")
	b.ReportMetric(float64(applyNs)/float64(rmNs), "apply/rm-rf")
	slices.Sort(ratios)
	b.ReportMetric(ratios[0], "min-apply/rm-rf")
	b.ReportMetric(ratios[len(ratios)/2], "median-apply/rm-rf")
	b.ReportMetric(float64(removed), "releases")
	b.ReportMetric(float64(phaseNs[retention.PhaseLock]+phaseNs[retention.PhaseRescan])/n/1e6, "lock+rescan-ms")
	for _, ph := range []retention.Phase{retention.PhaseHide, retention.PhaseRecheck, retention.PhaseDelete} {
		b.ReportMetric(float64(phaseNs[ph])/n/1e6, string(ph)+"-ms")
	}
}

package retention_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// BenchmarkApplyVsRmRf removes the same release directories of a generated
// store (300 files a release) twice per iteration, side by side: once with
// Apply (lock, rescan, revalidation, hide, re-check, delete, prune) and once
// with `rm -rf` of the release directories. It reports both and their
// ratio (target: apply/rm-rf <= 1.25).
func BenchmarkApplyVsRmRf(b *testing.B) {
	template := b.TempDir()
	if _, err := storetest.Generate(template, storetest.GenConfig{Packages: 40, ReleasesPerPackage: 5, FilesPerRelease: 300, PayloadBytes: 2000, Seed: 3}); err != nil {
		b.Fatal(err)
	}
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	var applyNs, rmNs int64
	removed := 0
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
		plan, err := retention.Compute(inv, pol, time.Now(), nil)
		if err != nil {
			b.Fatal(err)
		}
		var dirs []string
		for _, d := range plan.Removals() {
			dirs = append(dirs, filepath.Join(r, "hab", "pkgs", filepath.FromSlash(d.Release.Path())))
		}
		removed = len(dirs)
		b.StartTimer()

		start := time.Now()
		res, err := plan.Apply(context.Background(), store, retention.ApplyOptions{Settle: -1})
		applyNs += time.Since(start).Nanoseconds()
		if err != nil || res.Removed != len(dirs) {
			b.Fatalf("apply: %v, removed %d of %d", err, res.Removed, len(dirs))
		}
		start = time.Now()
		if out, err := exec.Command("rm", append([]string{"-rf"}, dirs...)...).CombinedOutput(); err != nil {
			b.Fatalf("rm: %v %s", err, out)
		}
		rmNs += time.Since(start).Nanoseconds()

		b.StopTimer()
		store.Close()
		for _, d := range dirs[:1] {
			if _, err := os.Stat(d); err == nil {
				b.Fatal("rm -rf left a directory")
			}
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(applyNs)/float64(b.N)/1e6, "apply-ms")
	b.ReportMetric(float64(rmNs)/float64(b.N)/1e6, "rm-rf-ms")
	b.ReportMetric(float64(applyNs)/float64(rmNs), "apply/rm-rf")
	b.ReportMetric(float64(removed), "releases")
}

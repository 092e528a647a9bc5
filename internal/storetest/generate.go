package storetest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// GenConfig shapes a synthetic store.
type GenConfig struct {
	// Packages is the number of origin/name pairs; ReleasesPerPackage how
	// many releases each has (so Packages*ReleasesPerPackage releases).
	Packages           int
	ReleasesPerPackage int
	// Origins spreads packages over this many origins (default 20).
	Origins int
	// FilesPerRelease adds payload files to each release (default 0), in
	// a few subdirectories, each PayloadBytes long.
	FilesPerRelease int
	PayloadBytes    int
	// Seed makes the store reproducible.
	Seed uint64
}

// GenStats describes what Generate wrote.
type GenStats struct {
	Releases   int
	TDepsLines int
	MinTDeps   int
	MaxTDeps   int
}

type genRelease struct {
	ident string
	built time.Time
	deps  []string
	tdeps []string
}

// Generate writes a synthetic store under root (root/hab/pkgs) with a
// realistic shape: a base layer of 60 packages that depend on lower base
// packages (like glibc, gcc-libs, openssl...), and the rest ("apps") that
// depend on 1 to 4 base packages and sometimes on another app. Each
// release was "built" at its own time, and depends on the releases of its
// dependencies that were newest at that time, as a real build would have
// picked them. TDEPS is the ordered closure (direct deps first), typically
// 5 to 60 entries.
func Generate(root string, cfg GenConfig) (GenStats, error) {
	if cfg.Origins <= 0 {
		cfg.Origins = 20
	}
	if cfg.ReleasesPerPackage <= 0 {
		cfg.ReleasesPerPackage = 10
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	const base = 60
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	span := 4 * 365 * 24 * time.Hour

	type pkg struct {
		origin, name string
		directs      []int
		rels         []genRelease
	}
	pkgs := make([]pkg, cfg.Packages)
	for i := range pkgs {
		p := &pkgs[i]
		if i < base {
			p.origin, p.name = "core", fmt.Sprintf("base%02d", i)
			// Base package i depends on up to 3 of the base packages below.
			for k := 0; k < min(i, 1+rng.IntN(3)); k++ {
				p.directs = appendUnique(p.directs, rng.IntN(i))
			}
		} else {
			p.origin = fmt.Sprintf("origin%02d", i%cfg.Origins)
			p.name = fmt.Sprintf("app%06d", i)
			for k := 0; k < 1+rng.IntN(4); k++ {
				p.directs = appendUnique(p.directs, base/2+rng.IntN(min(i, base)-base/2))
			}
			// Apps past the first 200 ("libraries") sometimes need one.
			if i >= base+200 && rng.IntN(3) == 0 {
				p.directs = appendUnique(p.directs, base+rng.IntN(200))
			}
		}
		// Releases, each with its build time, oldest first.
		times := make([]time.Duration, cfg.ReleasesPerPackage)
		for k := range times {
			times[k] = time.Duration(rng.Int64N(int64(span)))
		}
		sortDurations(times)
		for k, d := range times {
			built := start.Add(d).Add(time.Duration(i) * time.Second) // unique stamps
			version := fmt.Sprintf("%d.%d.%d", 1+k/4, (k/2)%2, k%2)
			p.rels = append(p.rels, genRelease{
				ident: fmt.Sprintf("%s/%s/%s/%s", p.origin, p.name, version, built.Format("20060102150405")),
				built: built,
			})
		}
	}
	// Package-level closures, direct deps first: every dependency has a
	// lower index, so closures of lower packages are already known.
	closures := make([][]int, len(pkgs))
	for i := range pkgs {
		seen := map[int]bool{}
		var c []int
		for _, d := range pkgs[i].directs {
			if !seen[d] {
				seen[d] = true
				c = append(c, d)
			}
		}
		for _, d := range pkgs[i].directs {
			for _, t := range closures[d] {
				if !seen[t] {
					seen[t] = true
					c = append(c, t)
				}
			}
		}
		closures[i] = c
	}
	// A release built at time t depends on the release of each package in
	// its closure that was newest at t, as a build then would have picked.
	var st GenStats
	st.MinTDeps = 1 << 30
	for i := range pkgs {
		p := &pkgs[i]
		for k := range p.rels {
			r := &p.rels[k]
			for j, d := range closures[i] {
				id := pickAt(pkgs[d].rels, r.built).ident
				if j < len(p.directs) {
					r.deps = append(r.deps, id)
				}
				r.tdeps = append(r.tdeps, id)
			}
			st.Releases++
			st.TDepsLines += len(r.tdeps)
			if i >= base {
				st.MinTDeps = min(st.MinTDeps, len(r.tdeps))
				st.MaxTDeps = max(st.MaxTDeps, len(r.tdeps))
			}
		}
	}
	// Write in parallel.
	var all []*genRelease
	for i := range pkgs {
		for k := range pkgs[i].rels {
			all = append(all, &pkgs[i].rels[k])
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	work := make(chan *genRelease, 256)
	for range runtime.GOMAXPROCS(0) * 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				if err := writeRelease(root, r, cfg); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for _, r := range all {
		work <- r
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return st, err
	default:
	}
	return st, nil
}

func appendUnique(s []int, v int) []int {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func sortDurations(d []time.Duration) {
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j] < d[j-1]; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
}

// pickAt returns the newest release built at or before t, or the oldest.
func pickAt(rels []genRelease, t time.Time) *genRelease {
	best := &rels[0]
	for k := range rels {
		if !rels[k].built.After(t) {
			best = &rels[k]
		}
	}
	return best
}

func writeRelease(root string, r *genRelease, cfg GenConfig) error {
	dir := filepath.Join(root, "hab", "pkgs", filepath.FromSlash(r.ident))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"TARGET":   DefaultTarget + "\n",
		"IDENT":    r.ident + "\n",
		"MANIFEST": "# " + r.ident + "\n",
	}
	if len(r.deps) > 0 {
		files["DEPS"] = strings.Join(r.deps, "\n") + "\n"
	}
	if len(r.tdeps) > 0 {
		files["TDEPS"] = strings.Join(r.tdeps, "\n") + "\n"
	}
	for name, c := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(c), 0o644); err != nil {
			return err
		}
	}
	if cfg.FilesPerRelease > 0 {
		payload := []byte(strings.Repeat("x", max(cfg.PayloadBytes, 1)))
		for i := 0; i < cfg.FilesPerRelease; i++ {
			sub := filepath.Join(dir, fmt.Sprintf("d%d", i%8))
			if i < 8 {
				if err := os.MkdirAll(sub, 0o755); err != nil {
					return err
				}
			}
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%04d", i)), payload, 0o644); err != nil {
				return err
			}
		}
	}
	return os.Chtimes(dir, r.built, r.built)
}

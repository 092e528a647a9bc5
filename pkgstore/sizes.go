package pkgstore

import (
	"context"
	"os"
	"sync"
	"syscall"

	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

// MeasureSizes sets the Size of each of rels to the bytes its directory
// occupies on disk (as Options.Sizes measures them: on its own mount,
// hard links once, no symlink followed), or -1 where it cannot be
// measured. Releases of one origin/name are measured together from that
// directory's descriptor, workers packages at a time (default:
// defaultWorkers()). It returns ctx's error when ctx ends first; sizes not yet
// measured are then left as they were.
func (s *Store) MeasureSizes(ctx context.Context, rels []*Release, workers int) error {
	if workers <= 0 {
		workers = defaultWorkers()
	}
	// Group by package, keeping the first-seen order of packages.
	type pkg struct{ origin, name string }
	var order []pkg
	groups := map[pkg][]*Release{}
	for _, r := range rels {
		k := pkg{r.Ident.Origin, r.Ident.Name}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	jobs := make(chan []*Release)
	var wg sync.WaitGroup
	for range min(workers, len(order)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var bufs onefs.Buffers
			for g := range jobs {
				s.measurePackage(ctx, g, &bufs)
			}
		}()
	}
	for _, k := range order {
		if ctx.Err() != nil {
			break
		}
		jobs <- groups[k]
	}
	close(jobs)
	wg.Wait()
	return ctx.Err()
}

// measurePackage measures releases of one origin/name.
func (s *Store) measurePackage(ctx context.Context, rels []*Release, bufs *onefs.Buffers) {
	id := rels[0].Ident
	nf, err := s.pkgs.OpenFile(safeio.Dir(id.Origin+"/"+id.Name), os.O_RDONLY|oDirectory|syscall.O_NONBLOCK, 0)
	if err != nil {
		for _, r := range rels {
			r.Size = -1
		}
		return
	}
	defer nf.Close()
	nd, err := safeio.DirFDOf(nf)
	if err != nil { // not on Linux: one release at a time through os.Root
		for _, r := range rels {
			r.Size = s.Size(r.Ident)
		}
		return
	}
	defer nd.Close()
	var vd safeio.DirFD
	open, version := false, ""
	for _, r := range rels {
		if ctx.Err() != nil {
			break
		}
		if !open || version != r.Ident.Version {
			if open {
				vd.Close()
			}
			version = r.Ident.Version
			vd, err = nd.OpenDir(version)
			if open = err == nil; !open {
				r.Size = -1
				continue
			}
		}
		r.Size = measureAt(vd, r.Ident.Release, bufs)
	}
	if open {
		vd.Close()
	}
}

// measureAt measures the directory name in d (see onefs.WalkAt): -1 when
// nothing could be measured.
func measureAt(d safeio.DirFD, name string, bufs *onefs.Buffers) int64 {
	u, err := onefs.WalkAt(d.Fd(), name, true, bufs)
	if err != nil && u.Bytes == 0 {
		return -1
	}
	return u.Bytes
}

// treeSize sums the space allocated to everything under r on r's own
// mount, hard links once, never following a symlink nor entering a mount
// point, in time linear in the tree (onefs.Walk). What cannot be read is
// left out.
func treeSize(r *os.Root) int64 {
	f, err := r.Open(".")
	if err != nil {
		return -1
	}
	defer f.Close()
	u, err := onefs.Walk(f, true)
	if err != nil && u.Bytes == 0 {
		return -1
	}
	return u.Bytes
}

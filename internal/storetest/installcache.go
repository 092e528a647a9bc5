package storetest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Publish makes archives downloadable (as Builder would serve them).
func (in *Installer) Publish(as ...Archive) *Installer {
	for _, a := range as {
		a = in.forTarget(a)
		in.PublishHart(a.Ident, a.Bytes())
	}
	return in
}

// forTarget is a, built for the Installer's Target when it names none.
func (in *Installer) forTarget(a Archive) Archive {
	if a.Target == "" {
		a.Target = in.Target
	}
	return a
}

// PublishHart makes a .hart downloadable as ident's archive.
func (in *Installer) PublishHart(ident string, hart []byte) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.depot[ident] = hart
}

// CacheDir is the artifact cache's absolute path.
func (in *Installer) CacheDir() string {
	return filepath.Join(in.Root, "hab", "cache", "artifacts")
}

// ArchivePath is where ident's archive is cached.
func (in *Installer) ArchivePath(ident string) string {
	return filepath.Join(in.CacheDir(), strings.ReplaceAll(ident, "/", "-")+"-"+in.target()+".hart")
}

// Cache puts a's archive in the cache as an earlier install or download
// left it, modified age ago (its change time is now: the kernel sets it).
func (in *Installer) Cache(a Archive, age time.Duration) error {
	a = in.forTarget(a)
	in.Publish(a)
	p := in.ArchivePath(a.Ident)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, a.Bytes(), 0o644); err != nil {
		return err
	}
	t := time.Now().Add(-age)
	return os.Chtimes(p, t, t)
}

// getCached is get_cached_artifact: fetch unless cached, then read.
func (in *Installer) getCached(ident string, top bool) (*cachedArchive, error) {
	p := in.ArchivePath(ident)
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		if err := in.at(Point{Step: StepCached, Ident: ident, Top: top, Path: p}); err != nil {
			return nil, err
		}
	} else if err := in.fetch(ident, top, p); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	es, err := ReadHart(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return &cachedArchive{ident: ident, top: top, path: p, entries: es}, nil
}

// fetch is fetch_artifact's download through an AtomicWriter.
func (in *Installer) fetch(ident string, top bool, dst string) error {
	in.mu.Lock()
	hart, ok := in.depot[ident]
	in.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s: not published", ident)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	var f *os.File
	for {
		n := filepath.Join(filepath.Dir(dst), ".tmp"+in.random(6))
		var err error
		if f, err = os.OpenFile(n, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			break
		} else if !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	_, err := f.Write(hart)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = in.at(Point{Step: StepDownloading, Ident: ident, Top: top, Path: f.Name()})
	}
	if err != nil {
		os.Remove(f.Name()) // NamedTempFile's drop
		return err
	}
	if err := os.Rename(f.Name(), dst); err != nil {
		return err
	}
	return in.at(Point{Step: StepFetched, Ident: ident, Top: top, Path: dst})
}

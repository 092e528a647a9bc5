package storetest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// unpack is unpack_artifact. PackageArchive::unpack opens the cached
// archive again (artifact::get_archive_reader(&self.path)), so one removed
// from the cache since it was read fails the install.
func (in *Installer) unpack(a *cachedArchive) error {
	final := in.releaseDir(a.ident)
	base := filepath.Dir(final)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return err
	}
	var temp string
	for {
		temp = filepath.Join(base, ".hab-pkg-install-"+filepath.Base(final)+in.random(6))
		err := os.Mkdir(temp, 0o700) // tempfile's TempDir mode
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	pt := Point{Ident: a.ident, Top: a.top, Path: temp, Total: len(a.entries)}
	step := func(s Step) error { pt.Step = s; return in.at(pt) }
	if err := step(StepTempDir); err != nil {
		return err
	}
	b, err := os.ReadFile(a.path)
	if err != nil {
		return err
	}
	if a.entries, err = ReadHart(b); err != nil {
		return fmt.Errorf("%s: %w", a.path, err)
	}
	pt.Total = len(a.entries)
	var dirs []ArchiveEntry
	for _, e := range a.entries {
		if e.IsDir() {
			dirs = append(dirs, e)
			continue
		}
		if err := unpackEntry(temp, e); err != nil {
			return err
		}
		pt.Done, pt.Entry = pt.Done+1, e.Name
		if err := step(StepUnpacking); err != nil {
			return err
		}
	}
	slices.SortStableFunc(dirs, func(x, y ArchiveEntry) int {
		return strings.Compare(strings.TrimSuffix(y.Name, "/"), strings.TrimSuffix(x.Name, "/"))
	})
	for _, e := range dirs {
		if err := unpackEntry(temp, e); err != nil {
			return err
		}
		pt.Done, pt.Entry = pt.Done+1, e.Name
		if err := step(StepUnpacking); err != nil {
			return err
		}
	}
	pt.Entry = ""
	if err := step(StepUnpacked); err != nil {
		return err
	}
	from := filepath.Join(temp, "hab", "pkgs", filepath.FromSlash(a.ident))
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := os.Rename(from, final)
		if err == nil || in.Installed(a.ident) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rename %s to %s: %w", from, final, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d, err := os.Open(base); err == nil {
		d.Sync()
		d.Close()
	}
	if err := step(StepRenamed); err != nil {
		return err
	}
	if err := testtool.RemoveAll(temp); err != nil { // os.RemoveAll, but Wine-safe
		return err
	}
	pt.Path = final
	return step(StepInstalled)
}

// unpackEntry writes one entry under root as tar-rs unpack_in does: the
// path must stay inside root (a ".." entry is skipped), parents are made,
// mode and mtime are the entry's.
func unpackEntry(root string, e ArchiveEntry) error {
	name := strings.TrimPrefix(path.Clean("/"+e.Name), "/")
	if name == "" || slices.Contains(strings.Split(e.Name, "/"), "..") {
		return nil
	}
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	mode := fs.FileMode(e.Mode) & fs.ModePerm
	switch {
	case e.IsDir():
		if err := os.Mkdir(p, mode); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := os.Chmod(p, mode); err != nil {
			return err
		}
	case e.Link != "":
		if err := os.Symlink(e.Link, p); err != nil {
			return err
		}
		return nil
	default:
		if err := os.WriteFile(p, []byte(e.Body), mode); err != nil {
			return err
		}
		if err := os.Chmod(p, mode); err != nil {
			return err
		}
	}
	return os.Chtimes(p, e.ModTime, e.ModTime)
}

// metaLines returns the trimmed, non-empty lines of an archive's metadata
// file: an entry whose path matches archive.rs METAFILE_REGXS,
// ^/?(?:opt/)?hab/pkgs/([^/]+)/([^/]+)/([^/]+)/([^/]+)/FILE$ (the last such
// entry wins, as its Metadata map is overwritten).
func metaLines(es []ArchiveEntry, file string) []string {
	var out []string
	for _, e := range es {
		n := strings.TrimPrefix(strings.TrimPrefix(e.Name, "/"), "opt/")
		parts := strings.Split(n, "/")
		if e.IsDir() || len(parts) != 7 || parts[0] != "hab" || parts[1] != "pkgs" || parts[6] != file ||
			slices.Contains(parts[2:6], "") {
			continue
		}
		out = out[:0]
		for _, l := range strings.Split(strings.TrimSpace(e.Body), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
	}
	return out
}

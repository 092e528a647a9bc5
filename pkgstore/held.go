package pkgstore

import (
	"errors"
	"io/fs"
)

// HeldArchive is the install in progress that a process holding the file
// named file of the artifact cache under fsRoot open shows (package
// runroots finds such processes). Habitat opens a cached archive to read
// its metadata, again to verify it, and again to unpack it
// (components/common/src/command/package/install.rs get_cached_artifact:
// PackageArchive::new, verify_artifact; unpack_artifact), and it does so
// for the package being installed before it says "Using" for the
// dependencies it finds installed: those show nowhere else until the
// package's own install directory exists. So the archive's release and
// its TDEPS and DEPS (read within hart's limits) are what the install
// needs, and the install is Active: removals wait for it. A download
// temp file (".tmpXXXXXX") is a download in progress; a file that cannot
// be read as an archive leaves Known false, saying why.
func HeldArchive(fsRoot, file string) Installing {
	p := ArtifactCacheDir + "/" + file
	inst := Installing{Path: p, Active: true, From: p}
	if isDownloadTemp(file) {
		inst.Download = true
		inst.From += ": a download in progress"
		return inst
	}
	cache, err := openArtifacts(fsRoot)
	if err != nil {
		inst.From = "the artifact cache cannot be read: " + err.Error()
		return inst
	}
	defer cache.Close()
	a, err := readArchive(cache, file)
	if errors.Is(err, fs.ErrNotExist) {
		inst.From += ": gone since the process opened it"
		return inst
	}
	if err != nil {
		inst.From += ": " + err.Error()
		return inst
	}
	id, err := ParseFullIdent(a.Ident)
	if err != nil {
		inst.From += ": its IDENT " + quoteName(a.Ident) + " is not a release"
		return inst
	}
	inst.Release = id
	inst.Deps = addIdentList(parseIdents(a.TDeps), parseIdents(a.Deps))
	inst.Known = a.TDeps != nil || a.Complete
	if !inst.Known {
		inst.From += ": TDEPS not found within the bounds hab-gc reads"
	}
	return inst
}

// Package hart reads Habitat package archives (.hart files) as Habitat
// does, with bounds: the header (HART-1, the signing key's name with
// revision, the hash type, the signature, a blank line), then the xz tar,
// whose metadata files are the entries matching Habitat's pattern
// ^/?(?:opt/)?hab/pkgs/ORIGIN/NAME/VERSION/RELEASE/FILE$
// (habitat-sh/habitat components/core/src/package/archive.rs,
// METAFILE_REGXS). An archive is identified by its IDENT, as Habitat's
// PackageArchive::ident is, never by its file name; other entries (the
// parent directories hab/, hab/pkgs, ... that older archives start with,
// the payload) are skipped. Nothing read from an archive is used as a path.
package hart
